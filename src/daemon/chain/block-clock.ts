/**
 * Where block timestamps come from: the wall clock, moved by the development time controls
 * (`evm_increaseTime`, `anvil_setTime`, `evm_setNextBlockTimestamp`,
 * `anvil_setBlockTimestampInterval`; `docs/dev-methods.md`).
 *
 * As in Hardhat and anvil, a timestamp chosen for the next block moves the clock with it: the
 * blocks after it continue from there as time passes, instead of jumping back to the wall clock.
 * The chain still raises a timestamp that is not after its parent's to parent + 1.
 */
/**
 * Latest timestamp the clock gives (2^48 s, some nine million years ahead): far inside the
 * header's uint64, so blocks stamped parent + 1 from there never overflow it.
 */
export const MAX_BLOCK_TIMESTAMP = 2n ** 48n;

export class BlockClock {
  /** Seconds added to the wall clock. */
  private offset = 0n;
  private next: bigint | undefined;
  private interval: bigint | undefined;

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** The clock's time now, in seconds. */
  seconds(): bigint {
    return this.wallSeconds() + this.offset;
  }

  /** The timestamp the block after one stamped `parent` gets. */
  timestampAfter(parent: bigint): bigint {
    const chosen =
      this.next ?? (this.interval !== undefined ? parent + this.interval : this.seconds());
    return chosen < MAX_BLOCK_TIMESTAMP ? chosen : MAX_BLOCK_TIMESTAMP;
  }

  /** Told the timestamp a block was committed with: a chosen one is used up, the clock follows it. */
  committed(timestamp: bigint): void {
    if (this.next === undefined) return;
    this.next = undefined;
    this.offset = timestamp - this.wallSeconds();
  }

  /** Moves the clock forward by `seconds`; returns the total offset from the wall clock. */
  increase(seconds: bigint): bigint {
    this.offset += seconds;
    return this.offset;
  }

  /** Sets the clock's time to `seconds`; returns the offset from the wall clock. */
  setTime(seconds: bigint): bigint {
    this.offset = seconds - this.wallSeconds();
    return this.offset;
  }

  /** The offset from the wall clock, in seconds. */
  get offsetSeconds(): bigint {
    return this.offset;
  }

  /** The next block gets exactly `timestamp`. */
  setNextTimestamp(timestamp: bigint): void {
    this.next = timestamp;
  }

  /** Each block's timestamp is its parent's plus `seconds` (undefined: the clock again). */
  setInterval(seconds: bigint | undefined): void {
    this.interval = seconds;
  }

  /** Back to an offset of `offset` seconds from the wall clock (a snapshot's), nothing chosen. */
  restore(offset: bigint): void {
    this.offset = offset;
    this.next = undefined;
  }

  /** Back to the wall clock, nothing chosen. */
  reset(): void {
    this.restore(0n);
    this.interval = undefined;
  }

  private wallSeconds(): bigint {
    return BigInt(Math.floor(this.nowMs() / 1000));
  }
}
