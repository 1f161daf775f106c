import { NodeCommand } from '../../cli/node-command.js';
import { addressArg } from '../../cli/chain-args.js';
import { AccountsClient } from '../../client/accounts-client.js';
import type { Hex } from '../../client/eth-client.js';

export interface AccountLockResult {
  address: Hex;
  locked: true;
}

export default class AccountLock extends NodeCommand {
  static override summary = 'Lock an unlocked account at once.';
  static override description =
    'The node drops the key from memory; the account can no longer sign until unlocked again.';
  static override examples = [
    '<%= config.bin %> account lock 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  ];
  static override args = { address: addressArg({ required: true }) };

  async run(): Promise<AccountLockResult> {
    const { args, flags } = await this.parse(AccountLock);
    const connection = this.connectDaemon(flags);
    try {
      await new AccountsClient(connection.rpc).lockAccount(args.address);
      this.log(`${args.address} locked`);
      return { address: args.address, locked: true };
    } finally {
      await connection.close();
    }
  }
}
