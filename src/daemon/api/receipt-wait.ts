/**
 * `eth_sendRawTransactionSync` (EIP-7966, as geth serves it since 1.16.6): a send answered with
 * the transaction's receipt once a block includes it. The wait is the request's own (milliseconds,
 * a QUANTITY as geth reads it or a JSON number as the EIP writes it), `DEFAULT_INCLUSION_WAIT_MS`
 * without one and at most `MAX_INCLUSION_WAIT_MS`, geth's defaults; past it the answer is code 4
 * with the hash as `data`, and the transaction stays pooled. A transaction behind a nonce gap
 * cannot be included before the gap is filled, so it is answered at once with code 5, naming
 * the nonce the sender needs next.
 */
import { bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { InclusionTimeoutError, TransactionNotReadyError } from '../../shared/errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { ChainReceipt } from '../chain/types.js';
import type { TxPoolApi } from '../txpool/types.js';

export const DEFAULT_INCLUSION_WAIT_MS = 20_000;
export const MAX_INCLUSION_WAIT_MS = 60_000;

/** The wait a request asks for, clamped; none, or zero, is the default. */
export function inclusionWaitMs(requested: string | number | undefined): number {
  const asked = requested === undefined ? 0 : Number(requested);
  return asked > 0 ? Math.min(asked, MAX_INCLUSION_WAIT_MS) : DEFAULT_INCLUSION_WAIT_MS;
}

export interface ReceiptSources {
  bus: Pick<EventBus, 'onBlock'>;
  pool: Pick<TxPoolApi, 'isPending' | 'getByHash' | 'pendingNonce'>;
  receipt(hash: Uint8Array): ChainReceipt | undefined;
}

/**
 * Sends through `submit` (which resolves with the lowercase 0x hash once the pool took the
 * transaction) and resolves with its receipt; listens for blocks before submitting, so a block
 * committed meanwhile is not missed.
 */
export async function sendAndAwaitReceipt(
  sources: ReceiptSources,
  submit: () => Promise<string>,
  waitMs: number,
): Promise<ChainReceipt> {
  let hashHex: string | undefined;
  let found!: (receipt: ChainReceipt) => void;
  const included = new Promise<ChainReceipt>((resolve) => (found = resolve));
  const stop = sources.bus.onBlock(({ receipts }) => {
    const receipt = receipts.find((candidate) => bytesToHex(candidate.transactionHash) === hashHex);
    if (receipt !== undefined) found(receipt);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    hashHex = await submit();
    const mined = sources.receipt(hexToBytes(hashHex as PrefixedHexString));
    if (mined !== undefined) return mined;
    const pooled = sources.pool.getByHash(hashHex);
    if (pooled !== undefined && !sources.pool.isPending(hashHex)) {
      const next = await sources.pool.pendingNonce(pooled.sender);
      throw new TransactionNotReadyError(
        `transaction pooled but not executable: it waits behind a nonce gap, the sender's next nonce is 0x${next.toString(16)}`,
        { data: hashHex },
      );
    }
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new InclusionTimeoutError(
              `the transaction was added to the pool but not included within ${waitMs} ms`,
              { data: hashHex },
            ),
          ),
        waitMs,
      );
      // A wait never holds the daemon's shutdown.
      timer.unref();
    });
    return await Promise.race([included, timedOut]);
  } finally {
    clearTimeout(timer);
    stop();
  }
}
