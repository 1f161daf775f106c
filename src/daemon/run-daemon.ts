/**
 * Runs the daemon in the current process until SIGTERM or SIGINT: used by the background
 * process entry (`main.ts`) and by `daemon start --foreground`.
 */
import { dataDirLayout } from '../shared/datadir-layout.js';
import type { DaemonInfo } from '../shared/daemon-info.js';
import { readConfigFile, resolveConfig } from './config/resolve-config.js';
import { limitHeapGrowth } from './heap-growth.js';
import { createLogger } from './logger.js';
import { startNode } from './node.js';

export interface RunDaemonOptions {
  dataDir: string;
  /** Raw option values given on the command line, by option key. */
  flags: Partial<Record<string, string>>;
  env: NodeJS.ProcessEnv;
  onReady?(info: DaemonInfo): void;
}

/** Resolves once the daemon has stopped after a signal. Rejects if it cannot start. */
export async function runDaemon(options: RunDaemonOptions): Promise<void> {
  limitHeapGrowth();
  const layout = dataDirLayout(options.dataDir);
  const { config } = resolveConfig({
    flags: options.flags,
    env: options.env,
    file: readConfigFile(layout.configFile),
    configFilePath: layout.configFile,
  });
  const logger = createLogger(config['log-level']);
  const node = await startNode(config, layout, logger);
  options.onReady?.(node.info);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn('second signal: exiting without a graceful shutdown', { signal });
        process.exit(1);
      }
      stopping = true;
      logger.info('stopping', { signal });
      node
        .stop()
        .catch((error: unknown) =>
          logger.error('graceful shutdown failed', { error: String(error) }),
        )
        .finally(() => {
          logger.info('stopped');
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
          resolve();
        });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
