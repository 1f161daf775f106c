import { Args, Errors } from '@oclif/core';
import { Wallet } from 'ethers';
import { NodeCommand } from '../../cli/node-command.js';
import { KEY_FILE_MAX_BYTES, readBoundedTextSync } from '../../shared/bounded-read.js';
import { checksumAddress } from '../../shared/address.js';
import {
  allowEmptyPassphraseFlag,
  passwordFileFlag,
  readPassphrase,
  refuseEmptyPassphrase,
} from '../../cli/passphrase-input.js';
import { AccountsClient } from '../../client/accounts-client.js';
import type { Hex } from '../../client/eth-client.js';

export interface AccountImportResult {
  address: Hex;
  /** What the file held. */
  source: 'private-key' | 'keystore';
}

const RAW_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

export default class AccountImport extends NodeCommand {
  static override summary = 'Import a private key or a key file into the node’s keystore.';
  static override description =
    'FILE holds either a private key (64 hex digits, 0x optional) or a v3 key file (JSON, as ' +
    'geth, ethers and wallets write them). A key file is decrypted here with the passphrase; ' +
    'the node then stores the key encrypted with the same passphrase. An empty passphrase would ' +
    'leave the stored key unprotected and is refused unless --allow-empty-passphrase is given, ' +
    'as for "account new".';
  static override examples = [
    '<%= config.bin %> account import ./key.txt',
    '<%= config.bin %> account import ./wallet.json --password-file ./passphrase.txt --json',
  ];
  static override args = {
    file: Args.string({
      description: 'File with the private key or the key file.',
      required: true,
    }),
  };
  static override flags = {
    'password-file': passwordFileFlag,
    'allow-empty-passphrase': allowEmptyPassphraseFlag,
  };

  async run(): Promise<AccountImportResult> {
    const { args, flags } = await this.parse(AccountImport);
    let content: string;
    try {
      content = readBoundedTextSync(args.file, KEY_FILE_MAX_BYTES).trim();
    } catch (error) {
      throw new Errors.CLIError(`cannot read ${args.file}: ${(error as Error).message}`, {
        exit: 1,
      });
    }
    const source = content.startsWith('{') ? 'keystore' : 'private-key';
    if (source === 'private-key' && !RAW_KEY.test(content)) {
      throw new Errors.CLIError(
        `${args.file} holds neither a private key (64 hex digits) nor a key file (JSON)`,
        { exit: 2 },
      );
    }
    const passphrase = await readPassphrase({
      passwordFile: flags['password-file'],
      message:
        source === 'keystore' ? 'Passphrase of the key file' : 'Passphrase to encrypt the key with',
      confirm: source === 'private-key',
    });
    refuseEmptyPassphrase(passphrase, flags['allow-empty-passphrase']);
    const privateKey = source === 'keystore' ? await decryptKeyFile(content, passphrase) : content;
    const connection = this.connectDaemon(flags);
    try {
      const address = checksumAddress(
        await new AccountsClient(connection.rpc).importRawKey(
          (privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`) as Hex,
          passphrase,
        ),
      );
      this.log(address);
      return { address, source };
    } finally {
      await connection.close();
    }
  }
}

async function decryptKeyFile(json: string, passphrase: string): Promise<string> {
  try {
    return (await Wallet.fromEncryptedJson(json, passphrase)).privateKey;
  } catch (error) {
    throw new Errors.CLIError(`cannot open the key file: ${(error as Error).message}`, {
      exit: 1,
    });
  }
}
