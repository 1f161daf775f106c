import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import type { CheckReport } from '../../shared/check-report.js';

export default class DaemonCheck extends BaseCommand {
  static override summary = 'Check the chain store of a data directory for damage.';
  static override description =
    'Walks every stored block read-only: the header hash against the hash index and the next ' +
    "block's parent link, the transactions and receipts roots recomputed from the stored bodies " +
    'and receipts, the transaction index; every trie node reachable from the state root of the ' +
    'head, the genesis and a few blocks between (all blocks with --full) is present and hashes ' +
    'to its key, contract code included; the log index holds exactly the entries of the indexed ' +
    'blocks. Reports each problem and exits 1 when it finds any. ' +
    'It may run while the daemon runs: the stores are opened read-only, LMDB gives the check a ' +
    'consistent snapshot without blocking the daemon, and blocks committed meanwhile are not looked at.';
  static override examples = [
    '<%= config.bin %> daemon check',
    '<%= config.bin %> daemon check --datadir ./node1 --full',
    '<%= config.bin %> daemon check --json',
  ];

  static override flags = {
    full: Flags.boolean({
      description: 'Walk the state trie of every block, not only the head, genesis and a sample.',
      default: false,
    }),
  };

  async run(): Promise<CheckReport> {
    const { flags } = await this.parse(DaemonCheck);
    const dataDir = this.dataDir(flags);
    const { checkChainStore } = await import('../../daemon/chain/chain-check.js');
    const report = await checkChainStore(dataDir, { full: flags.full });
    if (report.head !== undefined) {
      this.log(
        `checked blocks 0..${report.head} of ${dataDir}: state of ${report.stateRootsChecked.length} ` +
          `blocks (${report.trieNodesChecked} trie nodes and code), ` +
          (report.flatState === undefined
            ? ''
            : `flat state (${report.flatState.accounts} accounts, ${report.flatState.slots} slots), `) +
          `log index up to ${report.logIndexHeight}`,
      );
    }
    if (report.problems.length === 0) {
      this.log('no problems found');
      return report;
    }
    for (const { block, problem } of report.problems) {
      this.log(block === undefined ? `  ${problem}` : `  block ${block}: ${problem}`);
    }
    this.log(`${report.problems.length} problem(s) found`);
    process.exitCode = 1;
    return report;
  }
}
