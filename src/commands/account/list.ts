import { NodeCommand } from '../../cli/node-command.js';
import { checksumAddress } from '../../shared/address.js';
import { AccountsClient } from '../../client/accounts-client.js';
import type { Hex } from '../../client/eth-client.js';

export interface AccountListResult {
  /** Accounts the node manages: dev accounts, key files, local wallets. */
  accounts: Hex[];
}

export default class AccountList extends NodeCommand {
  static override summary = 'List the accounts the node manages.';
  static override description =
    'Prints the addresses of personal_listAccounts: in dev mode the ten test accounts, then ' +
    'the key files of <datadir>/keystore and the local wallets.';
  static override examples = [
    '<%= config.bin %> account list',
    '<%= config.bin %> account list --json',
  ];

  async run(): Promise<AccountListResult> {
    const { flags } = await this.parse(AccountList);
    const connection = this.connectDaemon(flags);
    try {
      const accounts = (await new AccountsClient(connection.rpc).listAccounts()).map(
        checksumAddress,
      );
      for (const address of accounts) this.log(address);
      return { accounts };
    } finally {
      await connection.close();
    }
  }
}
