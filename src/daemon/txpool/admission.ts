/**
 * The checks a transaction must pass before the pool looks at the sender's account: type,
 * signature, size, chain id, gas and price. They need only the transaction and the next block's
 * parameters. They come in two steps around sender recovery, the most expensive step of an
 * admission: `checkEnvelope` before it (so a transaction refused for its form never costs a
 * recovery) and `admitTransaction` with and after it. Messages keep geth's wording, which
 * clients match on.
 */
import { TransactionType } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { TransactionRejectedError } from '../../shared/errors.js';
import { senderAddressOf } from '../crypto/sender-address.js';
import { transactionFees } from './fees.js';
import type { TransactionFees } from './fees.js';

/** The node-wide and next-block parameters admission checks against. */
export interface AdmissionRules {
  chainId: bigint;
  minGasPrice: bigint;
  maxTxBytes: number;
  blockGasLimit: bigint;
  nextBaseFee: bigint;
}

/** What admission learned about a transaction that passed. */
export interface AdmittedTransaction {
  sender: Address;
  fees: TransactionFees;
}

/** Chain id a transaction is bound to; `undefined` for a pre-EIP-155 legacy signature. */
function boundChainId(tx: TypedTransaction): bigint | undefined {
  if ('chainId' in tx) return tx.chainId;
  const v = tx.v;
  if (v === undefined || v === 27n || v === 28n) return undefined;
  return (v - 35n) / 2n;
}

function recoverSender(tx: TypedTransaction): Address {
  try {
    return senderAddressOf(tx);
  } catch (error) {
    throw new TransactionRejectedError('invalid sender', { cause: error });
  }
}

function checkPrice(fees: TransactionFees, isFeeMarket: boolean, rules: AdmissionRules): void {
  const field = isFeeMarket ? 'max fee per gas' : 'gas price';
  if (fees.feeCap < rules.minGasPrice) {
    throw new TransactionRejectedError(
      `transaction underpriced: ${field} ${fees.feeCap} below minimum gas price ${rules.minGasPrice}`,
    );
  }
  if (fees.feeCap < rules.nextBaseFee) {
    throw new TransactionRejectedError(
      `transaction underpriced: ${field} ${fees.feeCap} below next block base fee ${rules.nextBaseFee}`,
    );
  }
}

/**
 * The checks that come before sender recovery: type, signature present, size (of `encoded`,
 * the transaction's encoding) and chain id. Throws `TransactionRejectedError` on the first
 * failure.
 */
export function checkEnvelope(
  tx: TypedTransaction,
  encoded: Uint8Array,
  rules: AdmissionRules,
): void {
  if (tx.type === TransactionType.BlobEIP4844) {
    throw new TransactionRejectedError(
      'transaction type not supported: this node does not accept blob transactions (type 3)',
    );
  }
  if (!tx.isSigned()) {
    throw new TransactionRejectedError('invalid sender: transaction is not signed');
  }
  const size = encoded.length;
  if (size > rules.maxTxBytes) {
    throw new TransactionRejectedError(
      `oversized data: transaction size ${size} bytes, limit ${rules.maxTxBytes}`,
    );
  }
  const chainId = boundChainId(tx);
  if (chainId !== undefined && chainId !== rules.chainId) {
    throw new TransactionRejectedError(`invalid chain id: have ${chainId} want ${rules.chainId}`);
  }
}

/**
 * Recovers the sender of a transaction that passed {@link checkEnvelope} and validates the rest
 * of what does not depend on the sender's account: gas and price. Throws
 * `TransactionRejectedError` on the first failure.
 */
export function admitTransaction(tx: TypedTransaction, rules: AdmissionRules): AdmittedTransaction {
  const sender = recoverSender(tx);
  if (tx.gasLimit > rules.blockGasLimit) {
    throw new TransactionRejectedError(
      `exceeds block gas limit: gas ${tx.gasLimit}, block gas limit ${rules.blockGasLimit}`,
    );
  }
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic) {
    throw new TransactionRejectedError(
      `intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`,
    );
  }
  const floor = tx.getMinimumGasLimit();
  if (tx.gasLimit < floor) {
    throw new TransactionRejectedError(
      `insufficient gas for floor data gas cost: gas ${tx.gasLimit}, minimum needed ${floor}`,
    );
  }
  const fees = transactionFees(tx);
  checkPrice(fees, 'maxFeePerGas' in tx, rules);
  return { sender, fees };
}
