/**
 * Bounds the key derivations of key files that run at once. A standard scrypt takes about a
 * second of CPU and 256 MiB (n = 2^18, r = 8); six at once peaked at 1.16 GB. So at most
 * `concurrency` run (`--keystore.kdf-concurrency`), at most `queue` more wait for a slot in
 * arrival order (`--keystore.kdf-queue`), and a derivation beyond those fails at once with
 * -32005 rather than holding memory or a caller's request for long.
 */
import { LimitExceededError } from '../../shared/errors.js';

export interface KeyDerivationLimits {
  /** Derivations running at once. */
  concurrency: number;
  /** Derivations waiting for a slot. */
  queue: number;
}

export class KeyDerivationSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limits: KeyDerivationLimits) {}

  /**
   * Runs `derive` once a slot is free.
   *
   * @throws LimitExceededError when every slot is taken and the queue is full.
   */
  async run<T>(derive: () => Promise<T>): Promise<T> {
    const { concurrency, queue } = this.limits;
    if (this.running < concurrency) {
      this.running++;
    } else if (this.waiting.length < queue) {
      // The derivation that finishes hands its slot over, so `running` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      throw new LimitExceededError(
        `too many key derivations: ${concurrency} running and ${queue} waiting, the limits (--keystore.kdf-concurrency, --keystore.kdf-queue); try again shortly`,
      );
    }
    try {
      return await derive();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}
