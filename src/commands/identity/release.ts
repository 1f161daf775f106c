import { NodeCommand } from '../../cli/node-command.js';
import { sentLine } from '../../cli/contract-display.js';
import type { SentTransaction } from '../../shared/rest-api.js';

export default class IdentityRelease extends NodeCommand {
  static override summary = "Release the handle of the node's identity address.";
  static override description =
    'A transaction of the identity registry signed by the node identity key; the handle is then ' +
    'free for anyone. Exits 1 when the identity has no handle.';
  static override examples = [
    '<%= config.bin %> identity release',
    '<%= config.bin %> identity release --json',
  ];

  async run(): Promise<SentTransaction> {
    const { flags } = await this.parse(IdentityRelease);
    const rest = this.connectRest(flags);
    try {
      const transaction = await rest.send('IdentityRegistry', 'release', [], '0');
      this.log(`released the handle of ${transaction.from}; ${sentLine(transaction)}`);
      return transaction;
    } finally {
      await rest.close();
    }
  }
}
