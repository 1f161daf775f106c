/**
 * One sender's transactions in the pool, keyed by nonce, with the account nonce they were last
 * checked against. The pending ones are exactly the run of consecutive nonces starting at the
 * account's state nonce; every other transaction is queued behind a nonce gap.
 */
import type { Address } from '@ethereumjs/util';
import type { TransactionFees } from './fees.js';
import type { PooledTransaction } from './types.js';

/** A pooled transaction with the facts the pool orders and checks it by. */
export interface PoolEntry {
  pooled: PooledTransaction;
  fees: TransactionFees;
  /** Gas × fee cap + value, the most the transaction can take from its sender. */
  cost: bigint;
  /** Admission order across the whole pool, to break price ties by arrival. */
  seq: number;
  /** Whether pending listeners have been told about it (they are told once). */
  announced: boolean;
}

export class SenderTransactions {
  /** The sender as lowercase 0x-hex, the pool's key for it. */
  readonly key: string;
  private readonly byNonce = new Map<bigint, PoolEntry>();
  private pendingRun = 0;
  /** The balance of the last `applyState`; undefined before the first. */
  private checkedBalance: bigint | undefined;

  constructor(
    readonly address: Address,
    private nonce: bigint,
  ) {
    this.key = address.toString();
  }

  get size(): number {
    return this.byNonce.size;
  }

  get pendingCount(): number {
    return this.pendingRun;
  }

  /** The nonce right after the pending run: the next one a new transaction would use. */
  get nextNonce(): bigint {
    return this.nonce + BigInt(this.pendingRun);
  }

  get(nonce: bigint): PoolEntry | undefined {
    return this.byNonce.get(nonce);
  }

  isPending(nonce: bigint): boolean {
    return nonce >= this.nonce && nonce < this.nextNonce;
  }

  /** Pending entries in nonce order. */
  pending(): PoolEntry[] {
    const entries: PoolEntry[] = [];
    for (let i = 0; i < this.pendingRun; i++) {
      entries.push(this.byNonce.get(this.nonce + BigInt(i)) as PoolEntry);
    }
    return entries;
  }

  /** Queued entries in nonce order. */
  queued(): PoolEntry[] {
    return this.sorted().filter((entry) => !this.isPending(entry.pooled.nonce));
  }

  /** The entry with the highest nonce: the only one removable without opening a gap. */
  last(): PoolEntry | undefined {
    let last: PoolEntry | undefined;
    for (const entry of this.byNonce.values()) {
      if (last === undefined || entry.pooled.nonce > last.pooled.nonce) last = entry;
    }
    return last;
  }

  /**
   * Stores an entry, replacing any with the same nonce (returned), and extends the pending run
   * over it when it closes a gap. Returns the entries that became pending.
   */
  put(entry: PoolEntry): { replaced?: PoolEntry; promoted: PoolEntry[] } {
    const replaced = this.byNonce.get(entry.pooled.nonce);
    this.byNonce.set(entry.pooled.nonce, entry);
    const promoted = this.extendPendingRun();
    if (replaced !== undefined && this.isPending(entry.pooled.nonce) && !promoted.includes(entry)) {
      promoted.push(entry);
    }
    return { replaced, promoted };
  }

  /** Removes the entry with `nonce`; pending entries after it become queued. */
  remove(nonce: bigint): PoolEntry | undefined {
    const entry = this.byNonce.get(nonce);
    if (entry === undefined) return undefined;
    this.byNonce.delete(nonce);
    if (this.isPending(nonce)) this.pendingRun = Number(nonce - this.nonce);
    return entry;
  }

  /**
   * Re-checks every entry against fresh account state: drops those whose nonce is used and
   * those the balance cannot pay for, then rebuilds the pending run (demoting what follows a
   * dropped entry, promoting what a higher nonce made executable).
   */
  applyState(nonce: bigint, balance: bigint): { dropped: PoolEntry[]; promoted: PoolEntry[] } {
    // The same state again changes nothing: every entry was checked against it, on admission or
    // by the last call, and `put` and `remove` keep the pending run. Admission re-applies the
    // state for each transaction, so this keeps a burst from one sender linear.
    if (nonce === this.nonce && balance === this.checkedBalance) {
      return { dropped: [], promoted: [] };
    }
    this.checkedBalance = balance;
    this.nonce = nonce;
    const dropped: PoolEntry[] = [];
    for (const entry of [...this.byNonce.values()]) {
      if (entry.pooled.nonce < nonce || entry.cost > balance) {
        this.byNonce.delete(entry.pooled.nonce);
        dropped.push(entry);
      }
    }
    this.pendingRun = 0;
    return { dropped, promoted: this.extendPendingRun() };
  }

  private extendPendingRun(): PoolEntry[] {
    const promoted: PoolEntry[] = [];
    for (;;) {
      const entry = this.byNonce.get(this.nextNonce);
      if (entry === undefined) return promoted;
      this.pendingRun++;
      promoted.push(entry);
    }
  }

  private sorted(): PoolEntry[] {
    return [...this.byNonce.values()].sort((a, b) =>
      a.pooled.nonce < b.pooled.nonce ? -1 : a.pooled.nonce > b.pooled.nonce ? 1 : 0,
    );
  }
}
