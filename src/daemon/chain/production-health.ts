/**
 * Whether the node is producing blocks, and if not why: the one place that knows, read by the
 * consensus RPC's `status` and `health` routes (and by anything else that reports readiness).
 *
 * Why a halt instead of a crash: a commit that fails (disk full, I/O error) leaves the store at
 * the last committed block, which can still be served. The engine stops producing, retries
 * with exponential backoff, and resumes by itself once a commit succeeds again.
 */
import type { Logger } from '../logger.js';

/** First retry after a failed commit, doubled per further failure up to the cap. */
export const COMMIT_RETRY_BASE_MS = 500;
export const COMMIT_RETRY_CAP_MS = 15_000;

export type ProductionState =
  | { producing: true }
  | {
      producing: false;
      /** Why production stopped: the error of the first failed commit. */
      reason: string;
      /** ISO time of the first failed commit. */
      since: string;
      /** Failed commits since then (0 when an operator stopped production). */
      failures: number;
      /** ISO time of the next attempt; absent while the dev methods keep mining off. */
      nextAttempt?: string;
    };

export class ProductionHealth {
  private current: ProductionState = { producing: true };

  constructor(
    private readonly logger: Pick<Logger, 'error' | 'info' | 'debug'>,
    private readonly now: () => number = Date.now,
  ) {}

  state(): ProductionState {
    return this.current;
  }

  /** Records that an operator stopped production (dev mining methods): no attempt until started again. */
  stoppedByOperator(method: string): void {
    const since = new Date(this.now()).toISOString();
    this.current = { producing: false, reason: `stopped by ${method}`, since, failures: 0 };
    this.logger.info('block production stopped', { by: method });
  }

  /** Records that an operator started production again (dev mining methods). */
  startedByOperator(method: string): void {
    if (this.current.producing) return;
    this.current = { producing: true };
    this.logger.info('block production started', { by: method });
  }

  /**
   * Records a failed commit and returns how long to wait before the next attempt. Logs once,
   * at the first failure; the further ones only at debug level.
   */
  commitFailed(error: unknown): number {
    const reason = error instanceof Error ? error.message : String(error);
    const failures = this.current.producing ? 1 : this.current.failures + 1;
    const delay = Math.min(COMMIT_RETRY_CAP_MS, COMMIT_RETRY_BASE_MS * 2 ** (failures - 1));
    const nextAttempt = new Date(this.now() + delay).toISOString();
    if (this.current.producing) {
      const since = new Date(this.now()).toISOString();
      this.current = { producing: false, reason, since, failures, nextAttempt };
      this.logger.error('block production stopped: the chain store cannot be written', {
        reason,
        reads: 'still served',
        retry: `every ${COMMIT_RETRY_BASE_MS} ms doubling to ${COMMIT_RETRY_CAP_MS} ms`,
      });
    } else {
      this.current = { ...this.current, failures, nextAttempt };
      this.logger.debug('block commit retry failed', { failures, reason });
    }
    return delay;
  }

  /** Records a committed block; logs the resumption when production had stopped. */
  committed(height: bigint): void {
    if (this.current.producing) return;
    // The reason again: the error line may have been lost when the log is on the full disk.
    this.logger.info('block production resumed', {
      height: height.toString(),
      failedAttempts: this.current.failures,
      stoppedSince: this.current.since,
      reason: this.current.reason,
    });
    this.current = { producing: true };
  }
}
