/**
 * Results of `txpool_content`, `txpool_contentFrom`, `txpool_inspect` and `txpool_status` in
 * geth's shapes: senders keyed by checksummed address, their transactions keyed by decimal nonce.
 */
import { bigIntToHex, toChecksumAddress } from '@ethereumjs/util';
import { transactionFees } from './fees.js';
import { pendingTransactionJson } from './transaction-json.js';
import type { RpcTransaction } from './transaction-json.js';
import type { PooledTransaction, TxPoolApi } from './types.js';

/** Transactions of one section (pending or queued): sender → nonce → value. */
export type PoolSection<T> = Record<string, Record<string, T>>;

export interface PoolContent {
  pending: PoolSection<RpcTransaction>;
  queued: PoolSection<RpcTransaction>;
}

export interface PoolInspection {
  pending: PoolSection<string>;
  queued: PoolSection<string>;
}

export interface PoolStatusJson {
  pending: string;
  queued: string;
}

/** The part of the pool these views read. */
export type PoolReader = Pick<TxPoolApi, 'pendingBySender' | 'queuedBySender' | 'status'>;

function section<T>(
  bySender: Map<string, PooledTransaction[]>,
  render: (pooled: PooledTransaction) => T,
): PoolSection<T> {
  const result: PoolSection<T> = {};
  for (const [sender, txs] of bySender) {
    const byNonce: Record<string, T> = {};
    for (const pooled of txs) byNonce[pooled.nonce.toString()] = render(pooled);
    result[toChecksumAddress(sender)] = byNonce;
  }
  return result;
}

/**
 * geth's one-line summary of a transaction: `<to>: <value> wei + <gas> gas × <price> wei`,
 * with "contract creation" for a missing recipient and the fee cap as price for fee-market types.
 */
export function inspectTransaction(pooled: PooledTransaction): string {
  const { tx } = pooled;
  const to = tx.to === undefined ? 'contract creation' : toChecksumAddress(tx.to.toString());
  const price = transactionFees(tx).feeCap;
  return `${to}: ${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`;
}

/** `txpool_content`: every pooled transaction in JSON-RPC form. */
export function txpoolContent(pool: PoolReader): PoolContent {
  return {
    pending: section(pool.pendingBySender(), pendingTransactionJson),
    queued: section(pool.queuedBySender(), pendingTransactionJson),
  };
}

/** The pooled transactions of one sender: pending and queued, each by decimal nonce. */
export interface PoolContentFrom {
  pending: Record<string, RpcTransaction>;
  queued: Record<string, RpcTransaction>;
}

/** `txpool_contentFrom`: the transactions of `sender` (a lowercase 0x address) in the pool. */
export function txpoolContentFrom(pool: PoolReader, sender: string): PoolContentFrom {
  const byNonce = (txs: PooledTransaction[] | undefined) => {
    const result: Record<string, RpcTransaction> = {};
    for (const pooled of txs ?? [])
      result[pooled.nonce.toString()] = pendingTransactionJson(pooled);
    return result;
  };
  return {
    pending: byNonce(pool.pendingBySender().get(sender)),
    queued: byNonce(pool.queuedBySender().get(sender)),
  };
}

/** `txpool_inspect`: every pooled transaction as geth's text summary. */
export function txpoolInspect(pool: PoolReader): PoolInspection {
  return {
    pending: section(pool.pendingBySender(), inspectTransaction),
    queued: section(pool.queuedBySender(), inspectTransaction),
  };
}

/** `txpool_status`: the counts as QUANTITY strings. */
export function txpoolStatus(pool: PoolReader): PoolStatusJson {
  const { pending, queued } = pool.status();
  return { pending: bigIntToHex(BigInt(pending)), queued: bigIntToHex(BigInt(queued)) };
}
