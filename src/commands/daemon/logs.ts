import { Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { BaseCommand } from '../../cli/base-command.js';
import { followLines, tailLines } from '../../client/log-follower.js';
import { dataDirLayout } from '../../shared/datadir-layout.js';
import { parseLogRecord, renderLogLine } from '../../shared/log-line.js';
import {
  LOG_LEVEL_CHOICES,
  isAtLeast,
  parseLogLevelName,
  type LogLevel,
} from '../../shared/log-levels.js';

export default class DaemonLogs extends BaseCommand {
  static override summary = "Print the daemon's log.";
  static override description =
    'Prints the last lines of <datadir>/logs/daemon.log (reaching into the rotated daemon.log.1, ' +
    '... when it is short) as time, level, message and key=value fields; --json prints the ' +
    'lines as the daemon wrote them, one JSON object a line. With --follow keeps printing new ' +
    'lines, across rotations, until Ctrl-C. What the daemon process printed outside its log ' +
    '(a crash trace) is in <datadir>/logs/daemon.stderr.';
  static override examples = [
    '<%= config.bin %> daemon logs',
    '<%= config.bin %> daemon logs -f --level warn',
    '<%= config.bin %> daemon logs -n 200 --json | jq -c \'select(.msg == "block committed")\'',
  ];

  static override flags = {
    follow: Flags.boolean({
      char: 'f',
      description: 'Keep printing lines as they are written, across rotations, until Ctrl-C.',
      default: false,
    }),
    lines: Flags.integer({
      char: 'n',
      description: 'How many of the last lines to print (before --level filters them).',
      default: 50,
      min: 0,
    }),
    level: Flags.string({
      description: `Only lines at this level or more severe: ${LOG_LEVEL_CHOICES}.`,
    }),
  };

  /** Prints lines as they come; returns nothing, so --json output is only the log's lines. */
  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonLogs);
    const level = flags.level === undefined ? undefined : this.levelOf(flags.level);
    const file = dataDirLayout(this.dataDir(flags)).logFile;
    if (!existsSync(file))
      this.error(
        `no log file at ${file}: the daemon has not been started in the background with this data directory`,
        { exit: 1 },
      );
    const json = this.jsonEnabled();
    const print = (line: string) => {
      if (level !== undefined && !isAtLeast(String(parseLogRecord(line)?.level), level)) return;
      process.stdout.write(`${json ? line : renderLogLine(line)}\n`);
    };
    tailLines(file, flags.lines).forEach(print);
    if (!flags.follow) return;
    await new Promise<void>((resolve) => {
      const stop = followLines(file, print);
      process.once('SIGINT', () => {
        stop();
        resolve();
      });
    });
  }

  private levelOf(raw: string): LogLevel {
    const level = parseLogLevelName(raw);
    if (level === undefined)
      this.usageError(`unknown --level "${raw}": expected ${LOG_LEVEL_CHOICES}`);
    return level;
  }
}
