/**
 * How long before its tick an interval block begins. A block is built from the pool and
 * executed when it begins, and becomes visible when that is done; begun on its tick, a block of
 * a thousand transfers appeared a tenth of a second after it, and every block of a burst came
 * that much late. Begun as long before the tick as recent blocks took to build, it is committed
 * about on the tick, as geth builds a payload ahead and seals it at its slot. Transactions that
 * arrive after a block began wait for the next one, as they would during its build.
 */

/** Interval blocks whose build times are remembered. */
const REMEMBERED = 4;
/** The most of an interval a block may begin before its tick. */
const MAX_SHARE = 0.25;

export class BuildLead {
  private readonly recent: number[] = [];

  /** Records how long an interval block took from its start to its commit, in ms. */
  built(ms: number): void {
    this.recent.push(Math.max(0, ms));
    if (this.recent.length > REMEMBERED) this.recent.shift();
  }

  /** How many ms before its tick the next block of an `intervalMs` interval begins. */
  leadMs(intervalMs: number): number {
    return Math.min(Math.max(0, ...this.recent), intervalMs * MAX_SHARE);
  }
}
