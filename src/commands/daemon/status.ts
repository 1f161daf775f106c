import { BaseCommand } from '../../cli/base-command.js';
import { fetchChainFacts, type ChainFacts } from '../../client/chain-facts.js';
import { daemonStatus, type DaemonStatus } from '../../client/daemon-process.js';
import { READINESS_CHECKS } from '../../shared/readiness.js';

/** Chain id, head and pool lines; one "unknown" line when the node did not answer. */
function chainFactLines(chain: ChainFacts | undefined): string[] {
  if (chain === undefined) return ['  chain        unknown (JSON-RPC did not answer)'];
  const height = BigInt(chain.head.number);
  // The dev chain's genesis has timestamp 0: its age would read as decades.
  const age = height === 0n ? 'genesis' : `${chain.head.ageSeconds} s ago`;
  const lines = [
    `  chain id     ${BigInt(chain.chainId)}`,
    `  head         ${height} (${age}, ${chain.head.hash})`,
  ];
  if (chain.pool !== undefined) {
    lines.push(
      `  pool         ${BigInt(chain.pool.pending)} pending, ${BigInt(chain.pool.queued)} queued`,
    );
  }
  return lines;
}

/** `systemctl status`'s codes: 3 for a unit that is not running. */
const EXIT_NOT_RUNNING = 3;
const EXIT_UNHEALTHY = 1;

export default class DaemonStatusCommand extends BaseCommand {
  static override summary = 'Show whether the node daemon is running.';
  static override description =
    'Prints pid, uptime, version and endpoints of the running daemon, its chain id, head block ' +
    '(height, hash, age; "genesis" for block 0) and pool size, whether it produces blocks ' +
    '(it stops when the chain store cannot be written, e.g. a full disk, and resumes by itself; ' +
    'the dev methods can switch mining off), and the readiness checks of GET /ready: chain store open, ' +
    'block production running, head younger than --health.max-head-age-blocks block times, listeners up. ' +
    'Exit status, as systemctl status gives it: 0 running and ready, ' +
    '1 running but unhealthy (a readiness check failed, block production stopped, or the daemon does not answer), ' +
    '3 stopped or still starting.';
  static override examples = [
    '<%= config.bin %> daemon status',
    '<%= config.bin %> daemon status --json',
  ];

  async run(): Promise<DaemonStatus & { chain?: ChainFacts }> {
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
      process.exitCode = EXIT_NOT_RUNNING;
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
      if (production.nextAttempt !== undefined)
        this.log(`               retrying (next attempt ${production.nextAttempt})`);
    }
    const { readiness } = status;
    const probed = (status.endpoints.http ?? status.endpoints.metrics) !== undefined;
    if (readiness === undefined) {
      this.log(
        `  ready        unknown (${probed ? 'GET /ready did not answer' : 'no listener serves /ready'})`,
      );
    } else {
      this.log(`  ready        ${readiness.ready ? 'yes' : `NO (${readiness.failed.join(', ')})`}`);
      for (const name of READINESS_CHECKS) {
        const check = readiness.checks[name];
        this.log(`    ${name.padEnd(17)} ${check.ok ? 'ok  ' : 'FAIL'} ${check.detail}`);
      }
    }
    const chain =
      status.endpoints.http === undefined
        ? undefined
        : await fetchChainFacts(status.endpoints.http);
    for (const line of chainFactLines(chain)) this.log(line);
    for (const [name, url] of Object.entries(status.endpoints))
      this.log(`  ${name.padEnd(12)} ${url}`);
    if (production?.producing !== true || (probed && readiness?.ready !== true)) {
      process.exitCode = EXIT_UNHEALTHY;
    }
    return { ...status, chain };
  }
}
