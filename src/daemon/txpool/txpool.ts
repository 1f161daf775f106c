/**
 * The mempool, with geth's semantics.
 *
 * Each sender's transactions are split by nonce: `pending` is the run of consecutive nonces
 * starting at the account's state nonce (executable now, in that order); `queued` is everything
 * behind a gap, promoted as soon as the gap fills (by a new transaction or a committed block).
 * A transaction with the same sender and nonce as a pooled one replaces it only when both its
 * fee cap and its tip are at least `priceBumpPercent` higher.
 *
 * Admission runs the stateless checks (signature, chain id, size, gas, price) first, then the
 * account checks (nonce, balance, replacement, limits) one admission at a time, in arrival order,
 * so concurrent submissions from one sender see each other. Sender recovery can run on worker
 * threads meanwhile (`senderRecovery`); an admission waits for its own recovery in the queue.
 * When the pool is full, a newcomer evicts the lowest-ranked transaction that can leave without
 * opening a nonce gap (the highest nonce of another sender), ranking pending above queued and
 * then by fee cap; if the newcomer does not outrank it, the newcomer is refused with "txpool is
 * full".
 *
 * With a journal (`journal.ts`), `add` resolves only once the transaction is on disk, every
 * removal is journaled too, and `restore` re-admits the journal's transactions after a restart.
 * See docs/txpool.md.
 */
import { bytesToHex } from '@ethereumjs/util';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { TransactionRejectedError } from '../../shared/errors.js';
import { admitTransaction, checkEnvelope } from './admission.js';
import type { AdmissionRules, AdmittedTransaction } from './admission.js';
import type { Pause } from '../time-slice.js';
import { BinaryHeap } from './binary-heap.js';
import { effectiveTip, isSufficientBump, maxCost } from './fees.js';
import type { TransactionFees } from './fees.js';
import type { JournalWriter } from './journal.js';
import { SenderTransactions } from './sender-transactions.js';
import type { PoolEntry } from './sender-transactions.js';
import { SerialQueue } from './serial-queue.js';
import type {
  AccountReads,
  Admission,
  PoolLimits,
  PoolStateView,
  PoolStatus,
  PooledTransaction,
  SenderRecoverer,
  TxPoolApi,
} from './types.js';

/**
 * geth's defaults: 16 executable + 64 queued slots per account, 5120 + 1024 slots in all,
 * a 10% price bump for replacements, and transactions up to 128 KiB.
 */
export const DEFAULT_POOL_LIMITS: PoolLimits = Object.freeze({
  perSenderQueued: 64,
  globalSlots: 5120 + 1024,
  priceBumpPercent: 10,
  maxTxBytes: 128 * 1024,
  queuedLifetimeMs: 3 * 60 * 60 * 1000,
});

export interface TxPoolOptions {
  state: PoolStateView;
  chainId: bigint;
  /** Floor for the fee cap (legacy: gas price) of every admitted transaction, in wei. */
  minGasPrice: bigint;
  limits: PoolLimits;
  /** Recovers senders off the main thread ahead of admission. Default: admission recovers them. */
  senderRecovery?: SenderRecoverer;
  /** Keeps admitted transactions on disk across restarts. Default: none (memory only). */
  journal?: JournalWriter;
  /** Clock in ms for `addedAt`. Default `Date.now`. */
  now?: () => number;
  /** Told when a pending listener throws; the pool carries on. Default `console.error`. */
  onListenerError?: (error: unknown) => void;
  /** Told the outcome of each submitted transaction's admission (for the log and metrics). */
  onAdmission?: (outcome: AdmissionOutcome) => void;
  /**
   * Asked before each admission whether to let the event loop run first (`../time-slice.ts`):
   * a burst's admissions, queued together, otherwise run back to back. Default: never.
   */
  pause?: Pause;
}

/** What became of a submitted transaction: pooled, or refused and why. */
export type AdmissionOutcome =
  | { accepted: true; pooled: PooledTransaction }
  | { accepted: false; hashHex: string | undefined; reason: string; error: unknown };

/** Where a transaction would stand in the pool, for eviction: pending outranks queued. */
interface Rank {
  pending: boolean;
  feeCap: bigint;
  seq: number;
}

function outranks(a: Rank, b: Rank): boolean {
  if (a.pending !== b.pending) return a.pending;
  if (a.feeCap !== b.feeCap) return a.feeCap > b.feeCap;
  return a.seq < b.seq;
}

/** A journaled transaction that `restore` did not re-admit, and why. */
export interface RefusedOnRestore {
  hashHex: string;
  reason: string;
}

/**
 * A transaction's encoding, computed once for its admission (or `received`, the bytes it was
 * decoded from, which are its encoding: the decoders take canonical RLP and minimal integers
 * only): its size, its journal entry and its hash all come from it. The hash is cached as the
 * library caches it (frozen and signed transactions only, with the chain's own keccak), so
 * `tx.hash()` does not encode it again.
 */
function encodeOnce(tx: TypedTransaction, received?: Uint8Array): Uint8Array {
  const encoded = received ?? tx.serialize();
  const keccak = tx.common.customCrypto.keccak256;
  if (keccak !== undefined && Object.isFrozen(tx) && tx.isSigned()) {
    tx.cache.hash ??= keccak(encoded);
  }
  return encoded;
}

/** Orders transactions by nonce; stable, so equal nonces keep their order. */
function byNonce(a: TypedTransaction, b: TypedTransaction): number {
  return a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0;
}

/** A sender's pending run being merged into the block order. */
interface OrderCursor {
  entries: PoolEntry[];
  index: number;
  tip: bigint;
}

/**
 * The node's mempool.
 *
 * @example
 * ```ts
 * const pool = new TxPool({ state: chain, chainId: 9000n, minGasPrice: 0n, limits: DEFAULT_POOL_LIMITS });
 * const pooled = await pool.add(signedTx);
 * const forBlock = pool.executable();
 * ```
 */
export class TxPool implements TxPoolApi {
  private readonly byHash = new Map<string, PoolEntry>();
  private readonly senders = new Map<string, SenderTransactions>();
  private readonly listeners = new Set<(tx: PooledTransaction) => void>();
  private readonly serial = new SerialQueue();
  private readonly now: () => number;
  private readonly onListenerError: (error: unknown) => void;
  private pendingTotal = 0;
  private admissionsUnderWay = 0;
  private nextSeq = 0;
  private order: { baseFee: bigint; txs: PooledTransaction[] } | undefined;

  constructor(private readonly options: TxPoolOptions) {
    this.now = options.now ?? Date.now;
    this.onListenerError =
      options.onListenerError ??
      ((error) => console.error('txpool pending listener failed', error));
  }

  async add(tx: TypedTransaction, received?: Uint8Array): Promise<PooledTransaction> {
    const { pooled, durable } = await this.admit(tx, { received });
    await durable;
    return pooled;
  }

  admit(
    tx: TypedTransaction,
    options: { journal?: boolean; received?: Uint8Array } = {},
  ): Promise<Admission> {
    const origin = options.journal === false ? 'unjournaled' : 'submitted';
    const admission = this.check(tx, origin, options.received);
    const report = this.options.onAdmission;
    if (report !== undefined) {
      admission.then(
        ({ pooled }) => report({ accepted: true, pooled }),
        (error: unknown) =>
          report({
            accepted: false,
            hashHex: tx.isSigned() ? bytesToHex(tx.hash()) : undefined,
            reason: String((error as Error)?.message ?? error),
            error,
          }),
      );
    }
    return admission;
  }

  /**
   * Re-admits journaled transactions after a restart, each sender's in nonce order, with the
   * admission checks against the current head. Those refused (mined meanwhile, no longer
   * affordable, ...) leave the journal and are returned; the rest are pooled as if just sent.
   * The next block's base fee is not checked again: it moves, and a pooled transaction it has
   * overtaken waits in the pool (it is left out of blocks) rather than being dropped.
   */
  async restore(txs: readonly TypedTransaction[]): Promise<RefusedOnRestore[]> {
    const ordered = [...txs].sort(byNonce);
    // All admissions are queued at once, so sender recoveries overlap; the queue keeps the order.
    const outcomes = await Promise.allSettled(ordered.map((tx) => this.check(tx, 'restored')));
    const refused: RefusedOnRestore[] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') return;
      const hashHex = bytesToHex(ordered[index].hash());
      // A refusal is final; any other failure (a state read) leaves the entry for the next start.
      if (outcome.reason instanceof TransactionRejectedError) this.options.journal?.remove(hashHex);
      refused.push({
        hashHex,
        reason: String((outcome.reason as Error)?.message ?? outcome.reason),
      });
    });
    return refused;
  }

  /**
   * Checks and inserts a transaction; `durable` resolves once it is journaled (at once for a
   * transaction restored from the journal, or without a journal).
   */
  private async check(
    tx: TypedTransaction,
    origin: 'submitted' | 'restored' | 'unjournaled',
    received?: Uint8Array,
  ): Promise<Admission> {
    const encoded = encodeOnce(tx, received);
    const hashHex = tx.isSigned() ? bytesToHex(tx.hash()) : undefined;
    if (hashHex !== undefined) this.rejectKnown(hashHex);
    const { state, chainId, minGasPrice, limits, senderRecovery } = this.options;
    const rules: AdmissionRules = {
      chainId,
      minGasPrice,
      maxTxBytes: limits.maxTxBytes,
      blockGasLimit: state.blockGasLimit(),
      nextBaseFee: origin === 'restored' ? 0n : state.nextBaseFee(),
    };
    checkEnvelope(tx, encoded, rules);
    // Recovery runs beside the queue, and admissions still enter the queue in arrival order.
    const recovered = senderRecovery?.prepare(tx, encoded);
    this.admissionsUnderWay++;
    return this.serial.run(async () => {
      try {
        await this.options.pause?.();
        await recovered;
        // checkEnvelope has refused an unsigned transaction, so it has a hash.
        const pooled = await this.insert(tx, hashHex!, admitTransaction(tx, rules), encoded);
        // Queued for the journal inside the admission, so a removal that follows it (a block,
        // a replacement) is queued after it and wins.
        const writer = origin === 'submitted' ? this.options.journal : undefined;
        const written = writer?.write(pooled.hashHex, tx, encoded) ?? Promise.resolve();
        const durable = written.catch((error: unknown) => {
          // Not on disk, so not accepted: it leaves the pool unless a block took it meanwhile.
          this.drop(pooled.hashHex);
          throw error;
        });
        // The caller awaits `durable` after its own steps (the signer's turn); a failure that
        // comes first must not count as an unhandled rejection in between.
        durable.catch(() => undefined);
        return { pooled, durable };
      } finally {
        this.admissionsUnderWay--;
      }
    });
  }

  executable(): PooledTransaction[] {
    const baseFee = this.options.state.nextBaseFee();
    if (this.order === undefined || this.order.baseFee !== baseFee) {
      this.order = { baseFee, txs: this.blockOrder(baseFee) };
    }
    return [...this.order.txs];
  }

  onBlockCommitted(
    includedHashes: readonly string[],
    state: AccountReads,
    changedAccounts: readonly Address[] = [],
  ): Promise<void> {
    return this.serial.run(async () => {
      const affected = new Map<string, SenderTransactions>();
      for (const hashHex of includedHashes) {
        const account = this.removeByHash(hashHex);
        if (account !== undefined) affected.set(account.key, account);
      }
      for (const address of changedAccounts) {
        const account = this.senders.get(address.toString());
        if (account !== undefined) affected.set(account.key, account);
      }
      const remaining = [...affected.values()].filter((account) => account.size > 0);
      const fresh = await Promise.all(
        remaining.map(async (account) => ({
          account,
          nonce: await state.getNonce(account.address),
          balance: await state.getBalance(account.address),
        })),
      );
      const promoted: PoolEntry[] = [];
      for (const { account, nonce, balance } of fresh) {
        promoted.push(...this.applyState(account, nonce, balance));
      }
      this.announce(promoted);
    });
  }

  drop(hashHex: string): void {
    this.removeByHash(hashHex);
  }

  dropAll(): Promise<string[]> {
    return this.serial.run(async () => {
      const hashes = [...this.byHash.keys()];
      for (const hashHex of hashes) this.removeByHash(hashHex);
      return hashes;
    });
  }

  /**
   * Drops the queued transactions that have waited longer than `queuedLifetimeMs`, so a nonce
   * gap nobody fills does not hold pool slots for ever. Pending transactions never expire: the
   * next block takes them. Resolves with the hashes dropped.
   */
  dropExpiredQueued(): Promise<string[]> {
    return this.serial.run(async () => {
      const cutoff = this.now() - this.options.limits.queuedLifetimeMs;
      const expired = [...this.senders.values()]
        .flatMap((account) => account.queued())
        .filter((entry) => entry.pooled.addedAt <= cutoff)
        .map((entry) => entry.pooled.hashHex);
      for (const hashHex of expired) this.removeByHash(hashHex);
      return expired;
    });
  }

  getByHash(hashHex: string): PooledTransaction | undefined {
    return this.byHash.get(hashHex.toLowerCase())?.pooled;
  }

  isPending(hashHex: string): boolean {
    const entry = this.byHash.get(hashHex.toLowerCase());
    if (entry === undefined) return false;
    return this.senders.get(entry.pooled.senderHex)?.isPending(entry.pooled.nonce) === true;
  }

  pendingBySender(): Map<string, PooledTransaction[]> {
    return this.bySender((account) => account.pending());
  }

  queuedBySender(): Map<string, PooledTransaction[]> {
    return this.bySender((account) => account.queued());
  }

  async pendingNonce(address: Address): Promise<bigint> {
    const stateNonce = await this.options.state.getNonce(address);
    const account = this.senders.get(address.toString());
    let next = stateNonce;
    while (account?.get(next) !== undefined) next++;
    return next;
  }

  status(): PoolStatus {
    return { pending: this.pendingTotal, queued: this.byHash.size - this.pendingTotal };
  }

  admitting(): number {
    return this.admissionsUnderWay;
  }

  onPending(listener: (tx: PooledTransaction) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Account checks and insertion; runs inside the serial queue. */
  private async insert(
    tx: TypedTransaction,
    hashHex: string,
    admitted: AdmittedTransaction,
    encoded: Uint8Array,
  ): Promise<PooledTransaction> {
    const hash = tx.hash();
    // Checked again: an identical transaction may have been pooled while this one waited.
    this.rejectKnown(hashHex);
    const { sender, fees } = admitted;
    const { state, limits } = this.options;
    const [nonce, balance] = await Promise.all([state.getNonce(sender), state.getBalance(sender)]);
    const known = this.senders.get(sender.toString());
    const promotedByState = known === undefined ? [] : this.applyState(known, nonce, balance);
    this.announce(promotedByState);
    const account = this.senders.get(sender.toString()) ?? new SenderTransactions(sender, nonce);

    if (tx.nonce < nonce) {
      throw new TransactionRejectedError(
        `nonce too low: next nonce ${nonce}, tx nonce ${tx.nonce}`,
      );
    }
    const cost = maxCost(tx, fees);
    if (balance < cost) {
      throw new TransactionRejectedError(
        `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
      );
    }
    const current = account.get(tx.nonce);
    if (current !== undefined && !isSufficientBump(current.fees, fees, limits.priceBumpPercent)) {
      throw new TransactionRejectedError(
        `replacement transaction underpriced: needs a ${limits.priceBumpPercent}% higher fee cap and tip than the pooled transaction`,
      );
    }
    const seq = this.nextSeq++;
    if (current === undefined) this.makeRoom(account, tx.nonce, fees, seq);

    const pooled: PooledTransaction = {
      tx,
      hash,
      hashHex,
      sender,
      senderHex: account.key,
      nonce: tx.nonce,
      addedAt: this.now(),
      encoded,
    };
    const entry: PoolEntry = { pooled, fees, cost, seq, announced: false };
    this.senders.set(account.key, account);
    const { replaced, promoted } = this.update(account, () => account.put(entry));
    if (replaced !== undefined) this.forget(replaced);
    this.byHash.set(hashHex, entry);
    this.announce(promoted);
    return pooled;
  }

  private rejectKnown(hashHex: string): void {
    if (this.byHash.has(hashHex)) throw new TransactionRejectedError(`already known: ${hashHex}`);
  }

  /** Enforces the per-sender and global limits for a transaction taking a new slot. */
  private makeRoom(
    account: SenderTransactions,
    nonce: bigint,
    fees: TransactionFees,
    seq: number,
  ): void {
    const { perSenderQueued, globalSlots } = this.options.limits;
    const queued = account.size - account.pendingCount;
    if (nonce > account.nextNonce && queued >= perSenderQueued) {
      throw new TransactionRejectedError(
        `txpool is full: sender ${account.key} already has ${queued} queued transactions (per-sender queue limit ${perSenderQueued})`,
      );
    }
    if (this.byHash.size < globalSlots) return;
    const newcomer: Rank = { pending: nonce === account.nextNonce, feeCap: fees.feeCap, seq };
    const victim = this.lowestEvictable(account.key);
    if (victim === undefined || !outranks(newcomer, victim.rank)) {
      throw new TransactionRejectedError(
        `txpool is full: ${this.byHash.size} transactions (global limit ${globalSlots})`,
      );
    }
    this.removeByHash(victim.entry.pooled.hashHex);
  }

  /** The lowest-ranked last-nonce transaction of any sender but `exceptSender`. */
  private lowestEvictable(exceptSender: string): { entry: PoolEntry; rank: Rank } | undefined {
    let lowest: { entry: PoolEntry; rank: Rank } | undefined;
    for (const account of this.senders.values()) {
      if (account.key === exceptSender) continue;
      const entry = account.last();
      if (entry === undefined) continue;
      const rank: Rank = {
        pending: account.isPending(entry.pooled.nonce),
        feeCap: entry.fees.feeCap,
        seq: entry.seq,
      };
      if (lowest === undefined || outranks(lowest.rank, rank)) lowest = { entry, rank };
    }
    return lowest;
  }

  /** Removes a transaction (later nonces of its sender become queued); returns its account. */
  private removeByHash(hashHex: string): SenderTransactions | undefined {
    const entry = this.byHash.get(hashHex.toLowerCase());
    if (entry === undefined) return undefined;
    this.forget(entry);
    const account = this.senders.get(entry.pooled.senderHex);
    if (account !== undefined) this.update(account, () => account.remove(entry.pooled.nonce));
    return account;
  }

  /** Re-checks an account against fresh state; returns the entries that became pending. */
  private applyState(account: SenderTransactions, nonce: bigint, balance: bigint): PoolEntry[] {
    const { dropped, promoted } = this.update(account, () => account.applyState(nonce, balance));
    for (const entry of dropped) this.forget(entry);
    return promoted;
  }

  /** Takes a transaction out of the hash index and the journal (its account has let it go). */
  private forget(entry: PoolEntry): void {
    this.byHash.delete(entry.pooled.hashHex);
    this.options.journal?.remove(entry.pooled.hashHex);
  }

  /** Runs a change to one account, keeping the pending count, the sender index and the block order in step. */
  private update<T>(account: SenderTransactions, change: () => T): T {
    const before = account.pendingCount;
    const result = change();
    this.pendingTotal += account.pendingCount - before;
    if (account.size === 0) this.senders.delete(account.key);
    this.order = undefined;
    return result;
  }

  /** Tells pending listeners about entries they have not heard of yet. */
  private announce(entries: readonly PoolEntry[]): void {
    for (const entry of entries) {
      if (entry.announced || this.byHash.get(entry.pooled.hashHex) !== entry) continue;
      entry.announced = true;
      for (const listener of this.listeners) {
        try {
          listener(entry.pooled);
        } catch (error) {
          this.onListenerError(error);
        }
      }
    }
  }

  /**
   * Merges the senders' pending runs: the best effective tip first (ties by arrival), each
   * sender strictly by nonce. A sender stops at a transaction that cannot pay the base fee,
   * since nothing after it can be included before it.
   */
  private blockOrder(baseFee: bigint): PooledTransaction[] {
    const heap = new BinaryHeap<OrderCursor>(
      (a, b) =>
        a.tip > b.tip || (a.tip === b.tip && a.entries[a.index].seq < b.entries[b.index].seq),
    );
    const pushCursor = (entries: PoolEntry[], index: number) => {
      if (index >= entries.length) return;
      const tip = effectiveTip(entries[index].fees, baseFee);
      if (tip >= 0n) heap.push({ entries, index, tip });
    };
    for (const account of this.senders.values()) {
      if (account.pendingCount > 0) pushCursor(account.pending(), 0);
    }
    const ordered: PooledTransaction[] = [];
    for (let cursor = heap.pop(); cursor !== undefined; cursor = heap.pop()) {
      ordered.push(cursor.entries[cursor.index].pooled);
      pushCursor(cursor.entries, cursor.index + 1);
    }
    return ordered;
  }

  private bySender(
    select: (account: SenderTransactions) => PoolEntry[],
  ): Map<string, PooledTransaction[]> {
    const result = new Map<string, PooledTransaction[]>();
    for (const account of this.senders.values()) {
      const entries = select(account);
      if (entries.length > 0)
        result.set(
          account.key,
          entries.map((entry) => entry.pooled),
        );
    }
    return result;
  }
}
