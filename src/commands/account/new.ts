import { BaseCommand } from '../../cli/base-command.js';
import { passwordFileFlag, readPassphrase } from '../../cli/passphrase-input.js';
import { AccountsClient } from '../../client/accounts-client.js';
import { connectDaemon } from '../../client/daemon-connection.js';
import type { Hex } from '../../client/eth-client.js';

export interface AccountNewResult {
  /** The new account (lowercase, as the node returns it). */
  address: Hex;
}

export default class AccountNew extends BaseCommand {
  static override summary = 'Create an account in the node’s keystore.';
  static override description =
    'The node generates a key and stores it encrypted with the passphrase (a v3 key file in ' +
    '<datadir>/keystore, readable by geth and ethers). On a terminal the passphrase is asked ' +
    'for twice, masked; scripts pass --password-file.';
  static override examples = [
    '<%= config.bin %> account new',
    '<%= config.bin %> account new --password-file ./passphrase.txt --json',
  ];
  static override flags = { 'password-file': passwordFileFlag };

  async run(): Promise<AccountNewResult> {
    const { flags } = await this.parse(AccountNew);
    const passphrase = await readPassphrase({
      passwordFile: flags['password-file'],
      message: 'Passphrase for the new account',
      confirm: true,
    });
    const connection = connectDaemon(this.dataDir(flags));
    try {
      const address = await new AccountsClient(connection.rpc).newAccount(passphrase);
      this.log(address);
      return { address };
    } finally {
      await connection.close();
    }
  }
}
