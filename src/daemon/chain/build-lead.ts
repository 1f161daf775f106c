/**
 * How long before its tick an interval block begins. A block is built from the pool and
 * executed when it begins, and becomes visible when that is done; begun on its tick, a block of
 * a thousand transfers appeared a tenth of a second after it, and every block of a burst came
 * that much late. Begun as long before the tick as recent blocks took to build, it is committed
 * about on the tick, as geth builds a payload ahead and seals it at its slot. Transactions that
 * arrive while it runs are offered to it too, until it is full (`block-candidates.ts`).
 *
 * The lead is scaled to what the pool holds when the block would begin: a recent build of n
 * transactions that took t ms predicts t·p/n for p pending (never more than t: a block holds
 * what its gas limit allows). A burst that starts just after a block of a thousand
 * transactions otherwise saw its first block begin a quarter of the interval early, with only
 * the 30 of its transactions admitted by then, and took one block longer; scaled, the block
 * waits while the pool fills and begins once the pool holds what takes the rest of the interval
 * to build. The engine asks again as the tick nears (`RECHECK_MS`).
 */

/** Interval blocks whose build times are remembered. */
const REMEMBERED = 4;
/** The most of an interval a block may begin before its tick. */
const MAX_SHARE = 0.25;
/** How often the engine asks again for the lead while the pool may be filling, in ms. */
export const RECHECK_MS = 10;

interface Build {
  ms: number;
  transactions: number;
}

export class BuildLead {
  private readonly recent: Build[] = [];

  /** Records how long an interval block of `transactions` took from its start to its commit, in ms. */
  built(ms: number, transactions: number): void {
    this.recent.push({ ms: Math.max(0, ms), transactions });
    if (this.recent.length > REMEMBERED) this.recent.shift();
  }

  /** The earliest any block of an `intervalMs` interval begins before its tick, in ms. */
  maxLeadMs(intervalMs: number): number {
    return intervalMs * MAX_SHARE;
  }

  /** How many ms before its tick the next block begins, with `pending` transactions waiting. */
  leadMs(intervalMs: number, pending: number): number {
    let lead = 0;
    for (const { ms, transactions } of this.recent) {
      const share = transactions === 0 ? 1 : Math.min(1, pending / transactions);
      lead = Math.max(lead, ms * share);
    }
    return Math.min(lead, this.maxLeadMs(intervalMs));
  }
}
