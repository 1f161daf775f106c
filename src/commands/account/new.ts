import { NodeCommand } from '../../cli/node-command.js';
import { checksumAddress } from '../../shared/address.js';
import {
  allowEmptyPassphraseFlag,
  passwordFileFlag,
  readPassphrase,
  refuseEmptyPassphrase,
} from '../../cli/passphrase-input.js';
import { AccountsClient } from '../../client/accounts-client.js';
import { findKeyFile } from '../../client/daemon-files.js';
import type { Hex } from '../../client/eth-client.js';

export interface AccountNewResult {
  /** The new account (lowercase, as the node returns it). */
  address: Hex;
  /** Its key file in the data directory's keystore. */
  keyFile?: string;
}

export default class AccountNew extends NodeCommand {
  static override summary = 'Create an account in the node’s keystore.';
  static override description =
    'The node generates a key and stores it encrypted with the passphrase (a v3 key file in ' +
    '<datadir>/keystore, readable by geth and ethers). On a terminal the passphrase is asked ' +
    'for twice, masked; scripts pass --password-file. An empty passphrase (an empty answer or an ' +
    'empty file) would leave the key unprotected and is refused unless --allow-empty-passphrase ' +
    'is given. Prints the address and the key file.';
  static override examples = [
    '<%= config.bin %> account new',
    '<%= config.bin %> account new --password-file ./passphrase.txt --json',
  ];
  static override flags = {
    'password-file': passwordFileFlag,
    'allow-empty-passphrase': allowEmptyPassphraseFlag,
  };

  async run(): Promise<AccountNewResult> {
    const { flags } = await this.parse(AccountNew);
    const passphrase = await readPassphrase({
      passwordFile: flags['password-file'],
      message: 'Passphrase for the new account',
      confirm: true,
    });
    refuseEmptyPassphrase(passphrase, flags['allow-empty-passphrase']);
    const dataDir = this.dataDir(flags);
    const connection = this.connectDaemon(flags);
    try {
      const address = checksumAddress(
        await new AccountsClient(connection.rpc).newAccount(passphrase),
      );
      const keyFile = findKeyFile(dataDir, address);
      this.log(address);
      if (keyFile !== undefined) this.log(`key file ${keyFile}`);
      return { address, keyFile };
    } finally {
      await connection.close();
    }
  }
}
