/**
 * The transactions an interval block is offered: what the pool held executable when the block
 * began, then, pass after pass, what became executable while the block ran those. Before the
 * block's tick a pass that finds nothing new waits for arrivals. Past the tick only a burst
 * keeps the block open: a pass that finds fewer than `minPass` is the last, and after one that
 * found more, an empty pass waits `graceMs` for the next arrivals (a burst's admissions land in
 * the pool in batches). Steady traffic therefore sees its block committed about on its tick, as
 * before. After `fillUntil` one last pass begins, of whatever is executable then: a pass begun
 * in a burst runs while the burst's admissions share the thread, and one that ran past
 * `fillUntil` used to end its block at the few hundred transactions it began with while a
 * thousand more waited (docs/benchmarks.md, "The first block of a burst, once more"); the block
 * then needed one block more than its gas allowed. The executor stops taking transactions once
 * the block is full, and skips a sender whose earlier transaction it left out.
 *
 * A block begins a little before its tick (`build-lead.ts`); in a burst, transactions keep
 * arriving during the few hundred milliseconds a block of a thousand takes to run. Offered only
 * what was there at its start, the first block of a burst held what had arrived by then, and the
 * burst needed one block more than its gas allowed (docs/benchmarks.md, "Blocks that take what
 * arrives during their build"); geth's miner likewise keeps filling the payload it is building
 * until its slot.
 */
import type { PooledTransaction } from '../txpool/types.js';

export interface ExecutableSource {
  executable(): PooledTransaction[];
}

export interface FillWindow {
  now(): number;
  /** The block's tick: until then a pass that finds nothing new waits for arrivals. */
  tick: number;
  /** Past the tick, the fewest new transactions a pass must find for the block to stay open. */
  minPass: number;
  /** Past the tick, how long after such a pass an empty one waits for arrivals. */
  graceMs: number;
  /** After this only one more pass begins, of whatever is executable then. */
  fillUntil: number;
  /** Resolves once a transaction arrives in the pool, or at `at` (ms) if none does. */
  arrival(at: number): Promise<void>;
}

export async function* blockCandidates(
  first: readonly PooledTransaction[],
  pool: ExecutableSource,
  window: FillWindow,
): AsyncGenerator<PooledTransaction> {
  const offered = new Set<string>();
  const fresh = () => pool.executable().filter((pooled) => !offered.has(pooled.hashHex));
  let pass: readonly PooledTransaction[] = first;
  let lastFound = window.now();
  let open = true;
  for (;;) {
    for (const pooled of pass) {
      offered.add(pooled.hashHex);
      yield pooled;
    }
    if (!open) return;
    if (window.now() >= window.fillUntil) {
      pass = fresh();
      open = false;
      continue;
    }
    const burst = pass.length >= window.minPass;
    pass = fresh();
    while (pass.length === 0) {
      const graceEnd = burst ? lastFound + window.graceMs : 0;
      const waitUntil = Math.min(Math.max(window.tick, graceEnd), window.fillUntil);
      if (window.now() >= waitUntil) return;
      await window.arrival(waitUntil);
      pass = fresh();
    }
    lastFound = window.now();
    open = lastFound < window.tick || pass.length >= window.minPass;
  }
}
