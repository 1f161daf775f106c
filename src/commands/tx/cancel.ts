import {
  ReplacementCommand,
  replacementArgs,
  type ReplacementBody,
} from '../../cli/transaction-replacement.js';
import type { Transaction } from '../../client/eth-client.js';

/** A plain transfer costs exactly this much gas. */
const TRANSFER_GAS = 21_000n;

export default class TxCancel extends ReplacementCommand {
  static override summary = 'Cancel a pending transaction by replacing it with a no-op.';
  static override description =
    "Sends a transfer of 0 from the sender to itself with the pending transaction's nonce and " +
    "fees raised by --bump percent (default 10, the pool's --txpool.pricebump) or to the " +
    "node's current suggestion, whichever is higher, or to the fee flags of its type: " +
    '--max-fee/--priority-fee for an EIP-1559 transaction, --gas-price for a legacy one (a flag ' +
    'of the other type is refused). Once mined, the original can never be. ' +
    'The sender signs: an unlocked node account, or the key file given with --keystore. Waits ' +
    'for the replacement as "tx send" does (--async, --confirmations).';
  static override examples = [
    '<%= config.bin %> tx cancel 0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6',
    '<%= config.bin %> tx cancel 0x88e9…6cb6 --keystore ./key.json --password-file ./pass.txt --json',
  ];

  // Declared again: oclif's parser reads a command's arguments from its own statics only.
  static override args = replacementArgs;

  protected body(tx: Transaction): ReplacementBody {
    return { to: tx.from, value: 0n, gas: TRANSFER_GAS };
  }
}
