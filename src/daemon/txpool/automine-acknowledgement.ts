/**
 * With automine (block time 0) a send is answered once a block has taken its transaction, as
 * Hardhat's automine does and anvil's does in effect: a client that asks for the receipt or the
 * block number after its send returns finds the transaction mined. Answered at admission, ethers'
 * `provider.waitForTransaction` could read the block number before the block and the receipt
 * after it, and then wait for a further block that automine never makes.
 *
 * A send is answered at once when mining is not automatic or its transaction is not pending (a
 * nonce gap). A wait ends when the transaction leaves the pool (mined, dropped, replaced), when a
 * block that began after its admission left it pooled (it cannot be included now: a predecessor
 * is underpriced), when mining stops being automatic, at a rewind, at shutdown, or after
 * `ACKNOWLEDGE_LIMIT_MS` — the transaction is journaled by then, so answering is always safe.
 */
import type { Unsubscribe } from '../events/event-bus.js';

/** The longest a send waits for its block before it is answered anyway. */
export const ACKNOWLEDGE_LIMIT_MS = 5_000;

/** What the acknowledgement reads of the pool and the block producer. */
export interface InclusionSignals {
  automine(): boolean;
  /** Whether the pool holds the transaction (lowercase 0x hash) among its pending ones. */
  isPending(hashHex: string): boolean;
  /** Whether the pool holds the transaction at all. */
  isPooled(hashHex: string): boolean;
  /** Called after each committed block, once the pool has been brought up to date. */
  onBlock(listener: () => void): Unsubscribe;
  onRewind(listener: () => void): Unsubscribe;
}

interface Waiter {
  settled: Promise<void>;
  resolve: () => void;
  /** Blocks committed since admission; the first may have begun before it. */
  blocks: number;
  timer: NodeJS.Timeout;
}

export class AutomineAcknowledgement {
  private readonly waiting = new Map<string, Waiter>();
  private readonly unsubscribe: Unsubscribe[];

  constructor(private readonly signals: InclusionSignals) {
    this.unsubscribe = [
      signals.onBlock(() => this.blockCommitted()),
      signals.onRewind(() => this.releaseAll()),
    ];
  }

  /** Resolves when the send of `hashHex`, just admitted, may be answered (see the header). */
  settled(hashHex: string): Promise<void> {
    const { signals } = this;
    if (!signals.automine() || !signals.isPending(hashHex)) return Promise.resolve();
    const known = this.waiting.get(hashHex);
    if (known !== undefined) return known.settled;
    let resolve!: () => void;
    const settled = new Promise<void>((done) => (resolve = done));
    const timer = setTimeout(() => this.release(hashHex), ACKNOWLEDGE_LIMIT_MS);
    timer.unref();
    this.waiting.set(hashHex, { settled, resolve, blocks: 0, timer });
    return settled;
  }

  /** Mining changed: waits end unless it is still automatic. */
  miningModeChanged(): void {
    if (!this.signals.automine()) this.releaseAll();
  }

  /** Answers every waiting send and stops listening. */
  close(): void {
    for (const stop of this.unsubscribe) stop();
    this.releaseAll();
  }

  private blockCommitted(): void {
    for (const [hashHex, waiter] of this.waiting) {
      waiter.blocks++;
      if (!this.signals.isPooled(hashHex) || waiter.blocks >= 2) this.release(hashHex);
    }
  }

  private releaseAll(): void {
    for (const hashHex of [...this.waiting.keys()]) this.release(hashHex);
  }

  private release(hashHex: string): void {
    const waiter = this.waiting.get(hashHex);
    if (waiter === undefined) return;
    clearTimeout(waiter.timer);
    this.waiting.delete(hashHex);
    waiter.resolve();
  }
}
