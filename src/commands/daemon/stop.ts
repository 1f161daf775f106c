import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { stopDaemon, type StopResult } from '../../client/daemon-process.js';

export default class DaemonStop extends BaseCommand {
  static override summary = 'Stop the node daemon.';
  static override description =
    'Sends SIGTERM (the daemon finishes the block in flight, flushes and closes) and waits; sends SIGKILL if it is still running after --timeout seconds. ' +
    'Only the process that holds the data directory lock, with the start time recorded in daemon.json, is signalled; a record left by a killed daemon is reported as stale and removed.';
  static override examples = [
    '<%= config.bin %> daemon stop',
    '<%= config.bin %> daemon stop --timeout 30',
  ];

  static override flags = {
    timeout: Flags.integer({
      description: 'Seconds to wait for a graceful stop before SIGKILL.',
      default: 15,
      min: 1,
    }),
  };

  async run(): Promise<StopResult> {
    const { flags } = await this.parse(DaemonStop);
    const result = await stopDaemon(this.dataDir(flags), flags.timeout * 1000);
    if (result.stopped) {
      this.log(`daemon stopped (pid ${result.pid}, ${result.how})`);
    } else if (result.stalePid !== undefined) {
      this.log(
        `no daemon is running; removed the stale record of pid ${result.stalePid}, which was not signalled`,
      );
    } else {
      this.log('no daemon is running');
    }
    return result;
  }
}
