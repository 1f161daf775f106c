/**
 * The number of the newest committed block, in memory every thread of the daemon shares.
 *
 * The block producer writes it once the block's database transaction has committed and before
 * the producing thread answers anything from that block; the call threads compare it
 * with the head they hold at every read. So a block one thread has shown is found by every
 * thread from then on, whichever connection a client asks on next.
 *
 * Beside the number, a rewind count: a development rewind (`evm_revert`, `anvil_reset`) gives
 * heights new blocks, so a reader that sees the count change drops what it cached by number.
 * Both live in one 64-bit cell (the count in the top 16 bits), so a reader never sees one
 * without the other.
 */
const NUMBER_BITS = 48n;
const NUMBER_MASK = (1n << NUMBER_BITS) - 1n;
const REWINDS_MASK = 0xffffn;

/** What a reader of the shared head sees. */
export interface PublishedHead {
  number: bigint;
  /** Rewinds so far (modulo 2^16): a change means numbered blocks were replaced. */
  rewinds: number;
}

export class SharedHead {
  private readonly cell: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cell = new BigInt64Array(buffer);
  }

  publish(number: bigint): void {
    Atomics.store(this.cell, 0, (BigInt(this.readBoth().rewinds) << NUMBER_BITS) | number);
  }

  /** Publishes `number` as the head after a rewind, which replaces the blocks above it. */
  publishRewind(number: bigint): void {
    const rewinds = (BigInt(this.readBoth().rewinds) + 1n) & REWINDS_MASK;
    Atomics.store(this.cell, 0, (rewinds << NUMBER_BITS) | number);
  }

  read(): bigint {
    return this.readBoth().number;
  }

  readBoth(): PublishedHead {
    const cell = Atomics.load(this.cell, 0);
    return { number: cell & NUMBER_MASK, rewinds: Number((cell >> NUMBER_BITS) & REWINDS_MASK) };
  }
}
