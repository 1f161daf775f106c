import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { stopDaemon } from '../../client/daemon-process.js';

export interface StopCommandResult {
  stopped: boolean;
  pid?: number;
  how?: 'graceful' | 'forced';
}

export default class DaemonStop extends BaseCommand {
  static override summary = 'Stop the node daemon.';
  static override description =
    'Sends SIGTERM (the daemon finishes the block in flight, flushes and closes) and waits; sends SIGKILL if it is still running after --timeout seconds.';
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

  async run(): Promise<StopCommandResult> {
    const { flags } = await this.parse(DaemonStop);
    const stopped = await stopDaemon(this.dataDir(flags), flags.timeout * 1000);
    if (!stopped) {
      this.log('no daemon is running');
      return { stopped: false };
    }
    this.log(`daemon stopped (pid ${stopped.pid}, ${stopped.how})`);
    return { stopped: true, pid: stopped.pid, how: stopped.how };
  }
}
