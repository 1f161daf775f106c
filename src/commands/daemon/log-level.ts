import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { LOG_LEVEL_CHOICES, parseLogLevelName, type LogLevel } from '../../shared/log-levels.js';

export interface LogLevelResult {
  level: LogLevel;
}

export default class DaemonLogLevel extends NodeCommand {
  static override summary = "Show or change the running daemon's log level.";
  static override description =
    'Without an argument prints the level in effect. With one, changes it at once, until the ' +
    'daemon stops (the next start uses --log-level again). Levels from quietest: silent, error, ' +
    'warn, info, debug, trace; geth verbosity numbers 0-5 name the same levels. Calls ' +
    'debug_verbosity with the auth token of the data directory.';
  static override examples = [
    '<%= config.bin %> daemon log-level',
    '<%= config.bin %> daemon log-level debug',
    '<%= config.bin %> daemon log-level 3',
  ];
  static override args = {
    level: Args.string({ description: `New level: ${LOG_LEVEL_CHOICES}.` }),
  };

  async run(): Promise<LogLevelResult> {
    const { args, flags } = await this.parse(DaemonLogLevel);
    const requested = args.level === undefined ? undefined : parseLogLevelName(args.level);
    if (args.level !== undefined && requested === undefined) {
      this.usageError(`unknown log level "${args.level}": expected ${LOG_LEVEL_CHOICES}`);
    }
    const connection = this.connectDaemon(flags);
    try {
      const level = await connection.rpc.call<LogLevel>(
        'debug_verbosity',
        requested === undefined ? [] : [requested],
      );
      this.log(requested === undefined ? level : `log level set to ${level}`);
      return { level };
    } finally {
      await connection.close();
    }
  }
}
