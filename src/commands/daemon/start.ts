import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { daemonOptionFlags, explicitOptionValues } from '../../cli/daemon-flags.js';
import { startDaemon } from '../../client/daemon-process.js';
import { readConfigFile, resolveConfig } from '../../shared/config/resolve-config.js';
import { dataDirLayout } from '../../shared/datadir-layout.js';
import type { DaemonEndpoints } from '../../shared/daemon-info.js';

export interface StartResult {
  pid: number;
  dataDir: string;
  endpoints: DaemonEndpoints;
}

export default class DaemonStart extends BaseCommand {
  static override summary = 'Start the node daemon.';
  static override description =
    'Starts the node in the background (its log in <datadir>/logs/daemon.log, JSON lines rotated by --log.max-size and --log.max-files; read it with `daemon logs`), waits until its interfaces answer and prints their endpoints. ' +
    'A fresh data directory gets the embedded dev chain: chain id 9000 and the ten funded accounts of the test mnemonic. ' +
    'Option precedence: flag > environment variable > <datadir>/config.json > default.';
  static override examples = [
    '<%= config.bin %> daemon start',
    '<%= config.bin %> daemon start --block-time 0 --json-rpc.address 127.0.0.1:0',
    '<%= config.bin %> daemon start --foreground',
  ];

  static override flags = {
    foreground: Flags.boolean({
      description:
        'Run attached to this terminal (for systemd and containers), the log on stdout (--log.format); stop with Ctrl-C or SIGTERM.',
      default: false,
    }),
    ...daemonOptionFlags,
  };

  async run(): Promise<StartResult> {
    const { flags } = await this.parse(DaemonStart);
    const dataDir = this.dataDir(flags);
    const optionValues = explicitOptionValues(flags);
    const layout = dataDirLayout(dataDir);
    try {
      resolveConfig({
        flags: optionValues,
        env: process.env,
        file: readConfigFile(layout.configFile),
        configFilePath: layout.configFile,
      });
    } catch (error) {
      this.usageError((error as Error).message);
    }

    if (flags.foreground) {
      const { loadDaemonBundle } = await import('../../daemon/daemon-bundle.js');
      const { exports, codeCache } = loadDaemonBundle();
      let result: StartResult | undefined;
      await exports.runDaemon({
        dataDir,
        flags: optionValues,
        env: process.env,
        codeCache,
        onReady: (info) => {
          result = { pid: info.pid, dataDir: info.dataDir, endpoints: info.endpoints };
        },
      });
      return result as StartResult;
    }

    const info = await startDaemon({ dataDir, flags: optionValues });
    const result = { pid: info.pid, dataDir: info.dataDir, endpoints: info.endpoints };
    this.log(`daemon started (pid ${info.pid}, data directory ${info.dataDir})`);
    for (const [name, url] of Object.entries(info.endpoints))
      this.log(`  ${name.padEnd(12)} ${url}`);
    return result;
  }
}
