import { Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { BaseCommand } from '../../cli/base-command.js';
import { followFile, tailLines } from '../../client/log-follower.js';
import { dataDirLayout } from '../../shared/datadir-layout.js';

export interface LogsResult {
  file: string;
  lines: string[];
}

export default class DaemonLogs extends BaseCommand {
  static override summary = "Print the daemon's log.";
  static override description =
    'Prints the last lines of <datadir>/logs/daemon.log; with --follow keeps printing new lines until Ctrl-C.';
  static override examples = [
    '<%= config.bin %> daemon logs',
    '<%= config.bin %> daemon logs -f',
    '<%= config.bin %> daemon logs -n 200',
  ];

  static override flags = {
    follow: Flags.boolean({
      char: 'f',
      description: 'Keep printing lines as they are written, until Ctrl-C.',
      default: false,
    }),
    lines: Flags.integer({
      char: 'n',
      description: 'How many of the last lines to print.',
      default: 50,
      min: 0,
    }),
  };

  async run(): Promise<LogsResult> {
    const { flags } = await this.parse(DaemonLogs);
    const file = dataDirLayout(this.dataDir(flags)).logFile;
    if (flags.follow && this.jsonEnabled())
      this.usageError('--follow streams text and cannot be combined with --json');
    if (!existsSync(file))
      this.error(
        `no log file at ${file}: the daemon has not been started with this data directory`,
        { exit: 1 },
      );
    const lines = tailLines(file, flags.lines);
    for (const line of lines) this.log(line);
    if (flags.follow) {
      await new Promise<void>((resolve) => {
        const stop = followFile(file, (text) => process.stdout.write(text));
        process.once('SIGINT', () => {
          stop();
          resolve();
        });
      });
    }
    return { file, lines };
  }
}
