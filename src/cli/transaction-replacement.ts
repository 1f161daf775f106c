/**
 * Replacing a pending transaction (`tx speed-up`, `tx cancel`): the same sender and nonce with
 * fees raised enough for the pool to take the replacement. A pool (geth's rule, and this node's
 * `--txpool.pricebump`) takes it only when its fee cap and tip are both at least the bump higher
 * than the pending one's; the new fees are also at least what the node suggests now, so a
 * transaction stuck below the market gets mined.
 */
import { Errors, Flags } from '@oclif/core';
import type { DaemonConnection } from '../client/daemon-connection.js';
import { EthClient, type Hex, type Transaction } from '../client/eth-client.js';
import { failureReason } from '../client/transaction-failure.js';
import { transactionHashArg } from './chain-args.js';
import { receiptLines } from './chain-display.js';
import { NodeCommand } from './node-command.js';
import { passwordFileFlag } from './passphrase-input.js';
import { feeFlags, waitFlags } from './transaction-flags.js';
import {
  awaitReceipt,
  minedResult,
  openSigner,
  submitTransaction,
  type SentTransactionResult,
  type Signer,
  type TransactionFields,
} from './transaction-submission.js';

/** geth's default `--txpool.pricebump`, also this node's. */
const DEFAULT_BUMP_PERCENT = 10;

export const replacementArgs = { hash: transactionHashArg({ required: true }) };

export const replacementFlags = {
  keystore: Flags.string({
    description:
      'Key file (v3 JSON) of the sender, when it is not an unlocked node account; signed here.',
  }),
  'password-file': passwordFileFlag,
  bump: Flags.integer({
    description: `Percent to raise the pending fees by; at least the node's --txpool.pricebump.`,
    default: DEFAULT_BUMP_PERCENT,
    min: 1,
  }),
  ...feeFlags,
  ...waitFlags,
};

export interface FeeOverrides {
  'max-fee'?: bigint;
  'priority-fee'?: bigint;
  'gas-price'?: bigint;
}

/** `value` raised by `percent`, rounded up, so the result is always above the bump. */
function bumped(value: bigint, percent: number): bigint {
  return (value * BigInt(100 + percent) + 99n) / 100n;
}

function maxOf(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}

/** The pending transaction of `hash`; fails when it is unknown or already mined. */
export async function pendingTransaction(
  connection: DaemonConnection,
  hash: Hex,
): Promise<Transaction> {
  const tx = await new EthClient(connection.rpc).getTransaction(hash);
  if (tx === null) {
    throw new Errors.CLIError(`transaction ${hash} is not known to the node: nothing to replace`, {
      exit: 1,
    });
  }
  if (tx.blockNumber !== null) {
    throw new Errors.CLIError(
      `transaction ${hash} is already in block ${tx.blockNumber}: nothing to replace`,
      { exit: 1 },
    );
  }
  return tx;
}

/** The signer must be the pending transaction's sender. */
export function checkSender(signer: Signer, tx: Transaction): void {
  if (signer.address.toLowerCase() !== tx.from.toLowerCase()) {
    throw new Errors.CLIError(
      `the key file is of ${signer.address}, but ${tx.hash} was sent by ${tx.from}`,
      { exit: 1 },
    );
  }
}

/**
 * The replacement keeps the pending transaction's fee type, as a wallet's speed-up does. A fee
 * flag of the other type would either change the type or go unused, so it is refused.
 */
function refuseOtherTypeFees(tx: Transaction, overrides: FeeOverrides): void {
  const dynamic = tx.maxFeePerGas !== undefined;
  const names: Array<keyof FeeOverrides> = dynamic ? ['gas-price'] : ['max-fee', 'priority-fee'];
  const given = names.filter((name) => overrides[name] !== undefined).map((name) => `--${name}`);
  if (given.length === 0) return;
  const kind = dynamic ? 'an EIP-1559 transaction' : 'a legacy transaction';
  const instead = dynamic ? '--max-fee and --priority-fee' : '--gas-price';
  throw new Errors.CLIError(
    `${given.join(' and ')} cannot set the fees of ${tx.hash}: it is ${kind} (type ${tx.type ?? 0}), and its replacement is one too; give ${instead}`,
    { exit: 2 },
  );
}

/** Fees for the replacement of `tx`: the bumped fees, the node's suggestion, or the flags. */
export async function replacementFees(
  connection: DaemonConnection,
  tx: Transaction,
  bumpPercent: number,
  overrides: FeeOverrides,
): Promise<Pick<TransactionFields, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>> {
  const eth = new EthClient(connection.rpc);
  refuseOtherTypeFees(tx, overrides);
  if (tx.maxFeePerGas === undefined || tx.maxPriorityFeePerGas === undefined) {
    const market = BigInt(await connection.rpc.call<string>('eth_gasPrice'));
    return {
      gasPrice: overrides['gas-price'] ?? maxOf(bumped(tx.gasPrice, bumpPercent), market),
    };
  }
  const tip =
    overrides['priority-fee'] ??
    maxOf(
      bumped(tx.maxPriorityFeePerGas, bumpPercent),
      BigInt(await connection.rpc.call<string>('eth_maxPriorityFeePerGas')),
    );
  const baseFee = (await eth.getBlock('latest'))?.baseFeePerGas ?? 0n;
  return {
    maxPriorityFeePerGas: tip,
    maxFeePerGas:
      overrides['max-fee'] ?? maxOf(bumped(tx.maxFeePerGas, bumpPercent), 2n * baseFee + tip),
  };
}

/** What a replacement keeps or changes of the pending transaction, fees aside. */
export type ReplacementBody = Pick<TransactionFields, 'to' | 'value' | 'data' | 'gas'>;

/**
 * The run of `tx speed-up` and `tx cancel`: find the pending transaction, sign a replacement
 * with the same nonce and raised fees, send it, and wait for it as `tx send` does.
 */
export abstract class ReplacementCommand extends NodeCommand {
  static override args = replacementArgs;
  static override flags = replacementFlags;

  /** The replacement's recipient, value, data and gas. */
  protected abstract body(tx: Transaction): ReplacementBody;

  async run(): Promise<SentTransactionResult & { replaced: Hex }> {
    const { args, flags } = await this.parse(this.ctor as typeof ReplacementCommand);
    const connection = this.connectDaemon(flags);
    try {
      const tx = await pendingTransaction(connection, args.hash);
      const signer = await openSigner({ ...flags, from: tx.from });
      checkSender(signer, tx);
      const fields: TransactionFields = {
        ...this.body(tx),
        nonce: tx.nonce,
        ...(await replacementFees(connection, tx, flags.bump, flags)),
      };
      const hash = await submitTransaction(connection, signer, fields);
      if (flags.async) {
        this.log(hash);
        return { hash, replaced: tx.hash };
      }
      const { receipt, confirmations } = await awaitReceipt(connection, hash, {
        confirmations: flags.confirmations,
        timeoutSeconds: flags.timeout,
        quiet: this.jsonEnabled(),
      });
      this.log(`replaced ${tx.hash}`);
      for (const line of receiptLines(receipt)) this.log(line);
      if (receipt.status === 0) {
        const reason = await failureReason(connection.rpc, { from: tx.from, ...fields }, receipt);
        this.error(`transaction ${hash} failed in block ${receipt.blockNumber}: ${reason}`, {
          exit: 1,
        });
      }
      return { ...minedResult(hash, receipt, confirmations), replaced: tx.hash };
    } finally {
      await connection.close();
    }
  }
}
