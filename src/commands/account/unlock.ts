import { Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { addressArg } from '../../cli/chain-args.js';
import { passwordFileFlag, readPassphrase } from '../../cli/passphrase-input.js';
import { AccountsClient } from '../../client/accounts-client.js';
import type { Hex } from '../../client/eth-client.js';

export interface AccountUnlockResult {
  address: Hex;
  /** Seconds the account stays unlocked; 0 means until the daemon stops. */
  durationSeconds: number;
  /** When the unlock ends (ISO 8601), or null until the daemon stops. */
  expiresAt: string | null;
}

export default class AccountUnlock extends NodeCommand {
  static override summary = 'Unlock an account so the node signs with it.';
  static override description =
    'While unlocked, eth_sendTransaction and eth_sign use the account without a passphrase ' +
    '(from loopback clients and token holders only). The account locks itself after ' +
    '--duration seconds; 0 keeps it unlocked until the daemon stops.';
  static override examples = [
    '<%= config.bin %> account unlock 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '<%= config.bin %> account unlock 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --duration 60 --password-file ./passphrase.txt',
  ];
  static override args = { address: addressArg({ required: true }) };
  static override flags = {
    duration: Flags.integer({
      description: 'Seconds to stay unlocked; 0 until the daemon stops.',
      default: 300,
      min: 0,
    }),
    'password-file': passwordFileFlag,
  };

  async run(): Promise<AccountUnlockResult> {
    const { args, flags } = await this.parse(AccountUnlock);
    const passphrase = await readPassphrase({
      passwordFile: flags['password-file'],
      message: `Passphrase of ${args.address}`,
    });
    const connection = this.connectDaemon(flags);
    try {
      await new AccountsClient(connection.rpc).unlockAccount(
        args.address,
        passphrase,
        flags.duration,
      );
      const expiresAt =
        flags.duration === 0 ? null : new Date(Date.now() + flags.duration * 1000).toISOString();
      this.log(
        `${args.address} unlocked ${expiresAt === null ? 'until the daemon stops' : `until ${expiresAt}`}`,
      );
      return { address: args.address, durationSeconds: flags.duration, expiresAt };
    } finally {
      await connection.close();
    }
  }
}
