import { BaseCommand } from '../../cli/base-command.js';
import { daemonStatus, type DaemonStatus } from '../../client/daemon-process.js';

export default class DaemonStatusCommand extends BaseCommand {
  static override summary = 'Show whether the node daemon is running.';
  static override description =
    'Prints pid, uptime, version and endpoints of the running daemon, and whether it produces blocks ' +
    '(it stops when the chain store cannot be written, e.g. a full disk, and resumes by itself), ' +
    'or that it is stopped.';
  static override examples = [
    '<%= config.bin %> daemon status',
    '<%= config.bin %> daemon status --json',
  ];

  async run(): Promise<DaemonStatus> {
    const { flags } = await this.parse(DaemonStatusCommand);
    const status = await daemonStatus(this.dataDir(flags));
    if (!status.running) {
      if (status.starting) {
        const pid = status.starting.pid === undefined ? '' : ` (pid ${status.starting.pid})`;
        this.log(`starting${pid} (data directory ${status.dataDir})`);
      } else {
        this.log(`stopped (data directory ${status.dataDir})`);
      }
      if (status.stalePid !== undefined) {
        this.log(`  removed the stale record of pid ${status.stalePid} (not running this daemon)`);
      }
      return status;
    }
    this.log(
      `running (pid ${status.pid}, up ${status.uptimeSeconds} s, version ${status.version})`,
    );
    this.log(`  data directory ${status.dataDir}`);
    const production = status.blockProduction;
    if (production === undefined)
      this.log('  blocks       unknown (the consensus RPC did not answer)');
    else if (production.producing) this.log('  blocks       producing');
    else {
      this.log(`  blocks       STOPPED since ${production.since}: ${production.reason}`);
      this.log(`               retrying (next attempt ${production.nextAttempt})`);
    }
    for (const [name, url] of Object.entries(status.endpoints))
      this.log(`  ${name.padEnd(12)} ${url}`);
    return status;
  }
}
