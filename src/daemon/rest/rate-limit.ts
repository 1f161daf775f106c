/**
 * The rate limit of expensive REST operations (`--rest.expensive-rate`): a token bucket shared
 * by every route marked `expensive`, refilled at the configured rate per second and holding at
 * most one second's worth. ECIES encryption and decryption run on the daemon's main thread
 * (about 20 ms each on a loaded 2-core machine, docs/rest.md), so an unbounded stream of them
 * would delay blocks and every other answer.
 */
import { performance } from 'node:perf_hooks';
import { LimitExceededError } from '../../shared/errors.js';

export class ExpensiveOperationLimit {
  private tokens: number;
  private refilledAt = performance.now();

  /** @param perSecond operations per second; 0 for no limit. */
  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }

  /** @throws LimitExceededError naming the flag when the bucket is empty. */
  take(): void {
    if (this.perSecond === 0) return;
    const now = performance.now();
    this.tokens = Math.min(
      this.perSecond,
      this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond,
    );
    this.refilledAt = now;
    if (this.tokens < 1) {
      throw new LimitExceededError(
        `too many expensive operations: more than ${this.perSecond} per second (set by --rest.expensive-rate)`,
      );
    }
    this.tokens -= 1;
  }
}
