import {
  ReplacementCommand,
  replacementArgs,
  type ReplacementBody,
} from '../../cli/transaction-replacement.js';
import type { Transaction } from '../../client/eth-client.js';

export default class TxSpeedUp extends ReplacementCommand {
  static override summary = 'Replace a pending transaction by the same one with higher fees.';
  static override description =
    'Sends the pending transaction again (same sender, nonce, recipient, value, data and gas) ' +
    "with its fees raised by --bump percent (default 10, the pool's --txpool.pricebump) or to " +
    "the node's current suggestion, whichever is higher, or to the fee flags of its type: " +
    '--max-fee/--priority-fee for an EIP-1559 transaction, --gas-price for a legacy one (the ' +
    'replacement keeps the type; a flag of the other type is refused). ' +
    'The sender signs: an unlocked node account, or the key file given with --keystore. Waits for ' +
    'the replacement as "tx send" does (--async, --confirmations).';
  static override examples = [
    '<%= config.bin %> tx speed-up 0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6',
    '<%= config.bin %> tx speed-up 0x88e9…6cb6 --bump 25 --json',
    '<%= config.bin %> tx speed-up 0x88e9…6cb6 --keystore ./key.json --max-fee 50gwei --priority-fee 3gwei',
  ];

  // Declared again: oclif's parser reads a command's arguments from its own statics only.
  static override args = replacementArgs;

  protected body(tx: Transaction): ReplacementBody {
    return { to: tx.to ?? undefined, value: tx.value, data: tx.input, gas: tx.gas };
  }
}
