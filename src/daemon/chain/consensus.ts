/**
 * Single-validator BFT consensus.
 *
 * Why real steps with one validator: clients of the consensus socket expect the CometBFT
 * lifecycle, and keeping propose → prevote → precommit → commit explicit (and observable)
 * makes the block lifecycle the same shape a multi-validator engine would have; with one
 * validator each vote is our own and every step succeeds at once.
 *
 * Timing: with a block time the engine commits one block per interval (empty ones too unless
 * disabled), each begun as long before its tick as recent ones took to build (`build-lead.ts`)
 * and taking, for most of an interval, what arrives while it runs (`block-candidates.ts`). With
 * block time 0 it commits as soon as transactions are pending (automine),
 * batching everything pending that fits the block gas limit, and otherwise sleeps until the pool
 * wakes it. Both can be changed while running (`setMiningMode`: `evm_setAutomine`,
 * `evm_setIntervalMining`), and `mine` commits a block on demand; every round, the engine's own
 * and those asked for, runs in one queue, as does `exclusive` work (a development rewind).
 * Timestamps come from a `BlockClock`. `stop()` never abandons a block in flight: it waits for
 * the round to finish.
 */
import type { Address } from '@ethereumjs/util';
import { StorageError } from '../../shared/errors.js';
import type { EventBus, Unsubscribe } from '../events/event-bus.js';
import { SerialQueue } from '../txpool/serial-queue.js';
import type { PooledTransaction, TxPoolApi } from '../txpool/types.js';
import { blockCandidates } from './block-candidates.js';
import { BlockClock } from './block-clock.js';
import { BuildLead, RECHECK_MS } from './build-lead.js';
import type { StateChange } from './executor.js';
import type { ProductionHealth } from './production-health.js';
import type { BeforeVisible, CommittedBlock, RejectedTx } from './types.js';

/**
 * The share of an interval during which an interval block, from when it began, also takes the
 * transactions that arrive while it runs (`block-candidates.ts`). In a burst, a block that
 * began with 600 of them took its 1 428th after 0.5–0.6 of an interval (admissions and its own
 * execution share the thread); with half an interval it stopped short and the burst needed one
 * block more. Past the tick it fills only while a burst keeps coming, and a full block stops.
 */
const FILL_SHARE = 0.9;
/**
 * How long past its tick a block waits for more after its last pass that found some: a burst's
 * admissions reach the pool in batches, tens of milliseconds apart when sender recovery runs on
 * another thread.
 */
const FILL_GRACE_MS = 50;
/**
 * Past its tick, the fewest new transactions a pass of a block must find for the block to stay
 * open: a burst brings hundreds between two passes, steady traffic a few.
 */
const FILL_MIN_PASS = 64;

export type ConsensusStep = 'propose' | 'prevote' | 'precommit' | 'commit';

/** Observable progress of a round. `blockHash` is set on `commit`. */
export interface ConsensusStepEvent {
  height: bigint;
  round: number;
  step: ConsensusStep;
  /** Transactions offered to the block: all executable ones; those that do not fit wait. */
  txCount: number;
  blockHash?: string;
}

/** What the engine needs from the chain (see `Chain.buildAndCommitBlock`). */
export interface BlockProducer {
  head(): { number: bigint; block: { header: { timestamp: bigint } } };
  buildAndCommitBlock(
    txs: Iterable<PooledTransaction> | AsyncIterable<PooledTransaction>,
    timestamp: bigint,
    beforeVisible?: BeforeVisible,
    stateChange?: StateChange,
  ): Promise<CommittedBlock>;
}

/** When blocks are made without being asked for. */
export interface MiningMode {
  /** Commit as soon as transactions are pending. */
  automine: boolean;
  /** Commit one block per interval (ms); 0 for none. */
  intervalMs: number;
}

/** A block asked for (`mine`). */
export interface BlockRequest {
  /** Include the pool's executable transactions. Default true. */
  includePool?: boolean;
  /** Applied before the block's transactions (development setters). */
  stateChange?: StateChange;
  /** Accounts `stateChange` changes, which the pool re-checks. */
  changedAccounts?: readonly Address[];
}

export interface ConsensusOptions {
  chain: BlockProducer;
  pool: TxPoolApi;
  bus: EventBus;
  /** Interval between blocks in ms; 0 commits as soon as transactions are pending. Default 1000. */
  blockTimeMs?: number;
  /** Whether to commit blocks without transactions at each interval. Default true. */
  emptyBlocks?: boolean;
  /** Clock in ms, for the block interval. Default `Date.now`. */
  now?: () => number;
  /** Where block timestamps come from. Default the wall clock of `now`. */
  clock?: BlockClock;
  /** Told about each transaction left out of a block as invalid (and dropped from the pool). */
  onRejected?: (rejected: RejectedTx) => void;
  /** Told about a round that failed; the engine carries on with the next one. */
  onRoundError?: (error: unknown) => void;
  /**
   * Told about commits that fail to reach the store (`StorageError`: disk full, I/O error) and
   * those that succeed; it decides the backoff before the next attempt. Without it such a
   * failure is a failed round like any other.
   */
  health?: ProductionHealth;
  /** Told how long each block took to execute and commit, and how many transactions it holds. */
  observer?: BlockObserver;
}

/** `now` gives the start of a block (0 when unmeasured), `blockProduced` its end. */
export interface BlockObserver {
  now(): number;
  blockProduced(startedAt: number, txCount: number): void;
}

export class ConsensusEngine {
  readonly clock: BlockClock;
  private readonly emptyBlocks: boolean;
  private readonly now: () => number;
  private readonly stepListeners = new Set<(event: ConsensusStepEvent) => void>();
  private readonly rounds = new SerialQueue();
  private mode: MiningMode;
  private nextBlockAt = 0;
  private readonly lead = new BuildLead();
  private running = false;
  /** Attempts at the current height whose commit failed: the round number of the next one. */
  private failedRounds = 0;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private unsubscribePool: Unsubscribe | undefined;

  constructor(private readonly options: ConsensusOptions) {
    const blockTimeMs = options.blockTimeMs ?? 1000;
    this.mode = { automine: blockTimeMs === 0, intervalMs: blockTimeMs };
    this.emptyBlocks = options.emptyBlocks ?? true;
    this.now = options.now ?? Date.now;
    this.clock = options.clock ?? new BlockClock(this.now);
  }

  /** Starts producing blocks. Calling it while running does nothing. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribePool = this.options.pool.onPending(() => {
      // With an interval only, pending transactions wait for it.
      if (this.mode.automine) this.wake?.();
    });
    this.loop = this.run();
  }

  /** Stops after the block in flight (if any) is committed and published. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribePool?.();
    this.wake?.();
    await this.loop;
  }

  /** Listens to round steps; returns the unsubscribe function. */
  onStep(listener: (event: ConsensusStepEvent) => void): () => void {
    this.stepListeners.add(listener);
    return () => this.stepListeners.delete(listener);
  }

  miningMode(): MiningMode {
    return { ...this.mode };
  }

  /** Changes when blocks are made; a new interval counts from now. */
  setMiningMode(change: Partial<MiningMode>): void {
    const intervalMs = change.intervalMs ?? this.mode.intervalMs;
    if (intervalMs !== this.mode.intervalMs) this.nextBlockAt = this.now() + intervalMs;
    this.mode = { automine: change.automine ?? this.mode.automine, intervalMs };
    this.wake?.();
  }

  /** Commits one block now, in turn with the engine's own rounds; resolves once it is published. */
  async mine(request: BlockRequest = {}): Promise<CommittedBlock> {
    const committed = await this.rounds.run(() => this.round({ empty: true, ...request }));
    this.options.health?.committed(committed!.block.number);
    return committed!;
  }

  /** Runs `task` between rounds: no block is made while it runs. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.rounds.run(task);
  }

  private async run(): Promise<void> {
    this.nextBlockAt = this.now() + this.mode.intervalMs;
    while (this.running) {
      const { automine, intervalMs } = this.mode;
      const pending = automine && this.options.pool.executable().length > 0;
      const { pending: waiting } = this.options.pool.status();
      const beginAt = this.nextBlockAt - this.lead.leadMs(intervalMs, waiting);
      const now = this.now();
      const due = intervalMs > 0 && now >= beginAt;
      if (!pending && !due) {
        // Within reach of the tick the pool may fill and move the block's start earlier.
        const earliest = this.nextBlockAt - this.lead.maxLeadMs(intervalMs);
        await this.sleep(
          intervalMs > 0 ? Math.min(beginAt, Math.max(earliest, now + RECHECK_MS)) : undefined,
        );
        continue;
      }
      const tick = this.nextBlockAt;
      if (due) this.nextBlockAt = Math.max(this.nextBlockAt + intervalMs, this.now());
      try {
        const began = this.now();
        // An interval block also takes what arrives while it runs, for most of an interval.
        const fill = due ? { tick, fillUntil: began + intervalMs * FILL_SHARE } : undefined;
        const committed = await this.rounds.run(() =>
          this.round({ empty: due && this.emptyBlocks, fill }),
        );
        if (due && committed !== undefined) {
          this.lead.built(this.now() - began, committed.receipts.length);
        }
        if (committed !== undefined) this.options.health?.committed(committed.block.number);
      } catch (error) {
        const { health } = this.options;
        if (error instanceof StorageError && health !== undefined) {
          // The chain is back at its last committed block; the next attempt waits out the
          // backoff instead of the block time, and stop() still ends the wait at once. It is the
          // next round of the same height, as a CometBFT round after a failed one.
          const retryAt = this.now() + health.commitFailed(error);
          while (this.running && this.now() < retryAt) await this.sleep(retryAt);
          this.nextBlockAt = this.now();
          continue;
        }
        (this.options.onRoundError ?? ((e) => console.error('consensus round failed', e)))(error);
      }
    }
  }

  /**
   * One height: propose, prevote, precommit, commit. Skipped when there is nothing to commit
   * and `empty` is false. Resolves to the block committed, undefined when skipped.
   */
  private async round(
    request: BlockRequest & { empty: boolean; fill?: { tick: number; fillUntil: number } },
  ): Promise<CommittedBlock | undefined> {
    const { chain, pool, bus } = this.options;
    // Every executable transaction is offered; the executor packs them by the gas they really
    // use, as geth does (capping by declared gas limits would fit 300 ERC-20 transfers with a
    // 100 000 gas limit in a block that holds twice as many), and leaves the rest in the pool.
    const txs = request.includePool === false ? [] : pool.executable();
    if (txs.length === 0 && !request.empty) return undefined;
    const parent = chain.head();
    const height = parent.number + 1n;
    const step = (name: ConsensusStep, blockHash?: string) =>
      this.emitStep({
        height,
        round: this.failedRounds,
        step: name,
        txCount: txs.length,
        blockHash,
      });
    step('propose');
    step('prevote');
    step('precommit');
    const startedAt = this.options.observer?.now() ?? 0;
    // The pool is brought up to date before any reader sees the block, and the block is
    // published on the bus before this thread serves another request: whoever is shown the
    // block then finds the pool, filters and subscriptions already past it.
    // A block of state changes takes the least timestamp (the chain raises it to parent + 1)
    // and leaves the clock alone: a timestamp chosen for the next block is for the next
    // block of transactions.
    const changesOnly = request.stateChange !== undefined;
    const timestamp = changesOnly
      ? parent.block.header.timestamp
      : this.clock.timestampAfter(parent.block.header.timestamp);
    let committed: CommittedBlock;
    try {
      const { fill } = request;
      committed = await chain.buildAndCommitBlock(
        fill === undefined
          ? txs
          : blockCandidates(txs, pool, {
              ...fill,
              graceMs: FILL_GRACE_MS,
              minPass: FILL_MIN_PASS,
              now: this.now,
              arrival: (at) => this.arrival(at),
            }),
        timestamp,
        (block, state) => {
          for (const rejected of block.rejected) {
            pool.drop(rejected.hashHex);
            this.options.onRejected?.(rejected);
          }
          return pool.onBlockCommitted(
            block.results.map((r) => r.hashHex),
            state,
            request.changedAccounts,
          );
        },
        request.stateChange,
      );
    } catch (error) {
      if (error instanceof StorageError) this.failedRounds++;
      throw error;
    }
    this.failedRounds = 0;
    if (!changesOnly) this.clock.committed(committed.block.block.header.timestamp);
    step('commit', committed.block.hashHex);
    this.options.observer?.blockProduced(startedAt, committed.results.length);
    bus.publishBlock({
      block: committed.block,
      receipts: committed.receipts,
      results: committed.results,
    });
    return committed;
  }

  /** Resolves once a transaction arrives in the pool, or at `at` (ms) if none does. */
  private arrival(at: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, at - this.now()));
      const unsubscribe = this.options.pool.onPending(done);
    });
  }

  private emitStep(event: ConsensusStepEvent): void {
    for (const listener of [...this.stepListeners]) {
      try {
        listener(event);
      } catch (error) {
        (this.options.onRoundError ?? console.error)(error);
      }
    }
  }

  /** Sleeps until `at` (ms; for ever if undefined), a wake-up, or stop. */
  private sleep(at: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const timer = at === undefined ? undefined : setTimeout(done, Math.max(0, at - this.now()));
      const wake = () => done();
      this.wake = wake;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
