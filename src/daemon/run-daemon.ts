/**
 * Runs the daemon in the current process until SIGTERM or SIGINT: used by the background
 * process entry (`main.ts`) and by `daemon start --foreground`.
 */
// First: the hex codec the hashing library looks for as it loads.
import './hex-builtins.js';
import { dataDirLayout } from '../shared/datadir-layout.js';
import type { CodeCacheUse } from '../shared/bundle-script.js';
import type { DaemonInfo } from '../shared/daemon-info.js';
import { readConfigFile, resolveConfig } from '../shared/config/resolve-config.js';
import { limitHeapGrowth } from './heap-growth.js';
import { configSummary } from './config/config-summary.js';
import { envVarName, type NodeConfig } from '../shared/config/options.js';
import { containProcessOutput } from './log/process-output.js';
import { RotatingLogFile } from './log/rotating-log-file.js';
import { createLogger, humanReadable, stdoutWriter, type LineWriter } from './logger.js';
import { startNode, type RunningNode } from './node.js';

export interface RunDaemonOptions {
  dataDir: string;
  /** Raw option values given on the command line, by option key. */
  flags: Partial<Record<string, string>>;
  env: NodeJS.ProcessEnv;
  /**
   * True for the background daemon: it writes its log to `<datadir>/logs/daemon.log` (rotated),
   * not to stdout, which `daemon start` points at `daemon.stderr` for what is not a log line.
   */
  logToFile?: boolean;
  onReady?(info: DaemonInfo): void;
  /** Whether this code was compiled from a V8 code cache (`daemon-bundle.ts`), for the log. */
  codeCache?: CodeCacheUse;
}

/** The log file (JSON, rotated) or stdout (`--log.format`); the second value closes it. */
function logDestination(config: NodeConfig, logFile: string | undefined): [LineWriter, () => void] {
  if (logFile === undefined) {
    const out = stdoutWriter();
    return [config['log.format'] === 'json' ? out : humanReadable(out), () => {}];
  }
  const file = new RotatingLogFile(logFile, {
    maxSize: config['log.max-size'],
    maxFiles: config['log.max-files'],
  });
  return [(line) => file.write(line), () => file.close()];
}

/** Resolves once the daemon has stopped after a signal. Rejects if it cannot start. */
export async function runDaemon(options: RunDaemonOptions): Promise<void> {
  limitHeapGrowth();
  const layout = dataDirLayout(options.dataDir);
  const file = readConfigFile(layout.configFile);
  const { config, sources } = resolveConfig({
    flags: options.flags,
    env: options.env,
    file,
    configFilePath: layout.configFile,
  });
  const [write, closeLog] = logDestination(config, options.logToFile ? layout.logFile : undefined);
  const logger = createLogger(config['log-level'], write);
  if (options.logToFile) containProcessOutput(logger);
  logger.info('starting', {
    ...configSummary(
      layout.root,
      config,
      sources,
      (key) => options.flags[key] ?? options.env[envVarName(key)] ?? file[key],
    ),
    codeCache: options.codeCache,
  });
  // Listening from the start: a signal while the node starts (blocks are made before its
  // listeners are up) stops it as soon as it is up, instead of killing the process mid-start.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve).once('SIGINT', resolve);
  });
  let node: RunningNode;
  try {
    node = await startNode(config, layout, logger);
  } catch (error) {
    logger.error('start failed', { error: String(error) });
    closeLog();
    throw error;
  }
  options.onReady?.(node.info);

  const signal = await signalled;
  const forceExit = (second: NodeJS.Signals) => {
    logger.warn('second signal: exiting without a graceful shutdown', { signal: second });
    process.exit(1);
  };
  process.once('SIGTERM', forceExit).once('SIGINT', forceExit);
  logger.info('stopping', { signal });
  await node
    .stop()
    .catch((error: unknown) => logger.error('graceful shutdown failed', { error: String(error) }));
  logger.info('stopped');
  closeLog();
  process.off('SIGTERM', forceExit).off('SIGINT', forceExit);
}
