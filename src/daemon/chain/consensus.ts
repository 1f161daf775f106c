/**
 * Single-validator BFT consensus.
 *
 * Why real steps with one validator: clients of the consensus socket expect the CometBFT
 * lifecycle, and keeping propose → prevote → precommit → commit explicit (and observable)
 * makes the block lifecycle the same shape a multi-validator engine would have; with one
 * validator each vote is our own and every step succeeds at once.
 *
 * Timing: with a block time the engine commits one block per interval (empty ones too unless
 * disabled). With block time 0 it commits as soon as transactions are pending, batching
 * everything pending that fits the block gas limit, and otherwise sleeps until the pool wakes it.
 * `stop()` never abandons a block in flight: it waits for the round to finish.
 */
import { StorageError } from '../errors.js';
import type { EventBus, Unsubscribe } from '../events/event-bus.js';
import type { PooledTransaction, TxPoolApi } from '../txpool/types.js';
import type { ProductionHealth } from './production-health.js';
import type { BeforeVisible, CommittedBlock, RejectedTx } from './types.js';

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
  head(): { number: bigint };
  buildAndCommitBlock(
    txs: readonly PooledTransaction[],
    timestamp: bigint,
    beforeVisible?: BeforeVisible,
  ): Promise<CommittedBlock>;
}

export interface ConsensusOptions {
  chain: BlockProducer;
  pool: TxPoolApi;
  bus: EventBus;
  /** Interval between blocks in ms; 0 commits as soon as transactions are pending. Default 1000. */
  blockTimeMs?: number;
  /** Whether to commit blocks without transactions at each interval. Default true. */
  emptyBlocks?: boolean;
  /** Clock in ms, for block timestamps. Default `Date.now`. */
  now?: () => number;
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
  private readonly blockTimeMs: number;
  private readonly emptyBlocks: boolean;
  private readonly now: () => number;
  private readonly stepListeners = new Set<(event: ConsensusStepEvent) => void>();
  private running = false;
  /** Attempts at the current height whose commit failed: the round number of the next one. */
  private failedRounds = 0;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private unsubscribePool: Unsubscribe | undefined;

  constructor(private readonly options: ConsensusOptions) {
    this.blockTimeMs = options.blockTimeMs ?? 1000;
    this.emptyBlocks = options.emptyBlocks ?? true;
    this.now = options.now ?? Date.now;
  }

  /** Starts producing blocks. Calling it while running does nothing. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribePool = this.options.pool.onPending(() => this.wake?.());
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

  private async run(): Promise<void> {
    let nextBlockAt = this.now() + this.blockTimeMs;
    while (this.running) {
      if (this.blockTimeMs > 0) {
        await this.waitUntil(nextBlockAt);
        nextBlockAt = Math.max(nextBlockAt + this.blockTimeMs, this.now());
      } else if (this.options.pool.executable().length === 0) {
        await this.waitForWake();
      }
      if (!this.running) break;
      try {
        const height = await this.round();
        if (height !== undefined) {
          this.failedRounds = 0;
          this.options.health?.committed(height);
        }
      } catch (error) {
        const { health } = this.options;
        if (error instanceof StorageError && health !== undefined) {
          // The chain is back at its last committed block; the next attempt waits out the
          // backoff instead of the block time, and stop() still ends the wait at once. It is the
          // next round of the same height, as a CometBFT round after a failed one.
          this.failedRounds++;
          await this.waitUntil(this.now() + health.commitFailed(error));
          nextBlockAt = this.now();
          continue;
        }
        (this.options.onRoundError ?? ((e) => console.error('consensus round failed', e)))(error);
      }
    }
  }

  /**
   * One height: propose, prevote, precommit, commit. Skipped when there is nothing to commit.
   * Resolves to the height committed, undefined when skipped.
   */
  private async round(): Promise<bigint | undefined> {
    const { chain, pool, bus } = this.options;
    // Every executable transaction is offered; the executor packs them by the gas they really
    // use, as geth does (capping by declared gas limits would fit 300 ERC-20 transfers with a
    // 100 000 gas limit in a block that holds twice as many), and leaves the rest in the pool.
    const txs = pool.executable();
    if (txs.length === 0 && (this.blockTimeMs === 0 || !this.emptyBlocks)) return undefined;
    const height = chain.head().number + 1n;
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
    const committed = await chain.buildAndCommitBlock(
      txs,
      BigInt(Math.floor(this.now() / 1000)),
      (block, state) => {
        for (const rejected of block.rejected) {
          pool.drop(rejected.hashHex);
          this.options.onRejected?.(rejected);
        }
        return pool.onBlockCommitted(
          block.results.map((r) => r.hashHex),
          state,
        );
      },
    );
    step('commit', committed.block.hashHex);
    this.options.observer?.blockProduced(startedAt, committed.results.length);
    bus.publishBlock({
      block: committed.block,
      receipts: committed.receipts,
      results: committed.results,
    });
    return height;
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

  private waitForWake(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
    });
  }

  private waitUntil(at: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, at - this.now()));
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        // With a block time, pending transactions wait for the interval; only stop() ends it early.
        if (!this.running) done();
      };
    });
  }
}
