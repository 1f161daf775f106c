/**
 * The number of the newest committed block, in memory every thread of the daemon shares.
 *
 * The block producer writes it once the block's database transaction has committed and before
 * the producing thread answers anything from that block; the call threads compare it
 * with the head they hold at every read. So a block one thread has shown is found by every
 * thread from then on, whichever connection a client asks on next.
 */
export class SharedHead {
  private readonly cell: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cell = new BigInt64Array(buffer);
  }

  publish(number: bigint): void {
    Atomics.store(this.cell, 0, number);
  }

  read(): bigint {
    return Atomics.load(this.cell, 0);
  }
}
