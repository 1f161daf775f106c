/**
 * The transactions an interval block is offered (block-candidates.ts): the pool's executable
 * ones at its start, then those that arrived meanwhile, each once; before its tick it waits for
 * arrivals, after it it stops at the first pass without any, and after `fillUntil` only one more
 * pass begins.
 */
import { describe, expect, it } from '@jest/globals';
import { blockCandidates, type FillWindow } from '../../src/daemon/chain/block-candidates.js';
import type { PooledTransaction } from '../../src/daemon/txpool/types.js';

const tx = (hashHex: string) => ({ hashHex }) as PooledTransaction;

/** A window on a clock the test moves: `arrival` moves it to `at` unless told otherwise. */
function windowAt(clock: { ms: number }, tick: number, fillUntil: number): FillWindow {
  return {
    now: () => clock.ms,
    tick,
    graceMs: 0,
    minPass: 1,
    fillUntil,
    arrival: async (at) => {
      clock.ms = at;
    },
  };
}

/** A pool with a new transaction at every ask (`n1`, `n2`, …), counting the asks. */
function askedPool() {
  const pool = {
    asked: 0,
    executable: () => {
      pool.asked += 1;
      return [tx(`n${pool.asked}`)];
    },
  };
  return pool;
}

async function offered(candidates: AsyncGenerator<PooledTransaction>, onEach = (_: string) => {}) {
  const hashes: string[] = [];
  for await (const pooled of candidates) {
    hashes.push(pooled.hashHex);
    onEach(pooled.hashHex);
  }
  return hashes;
}

describe('blockCandidates', () => {
  it('offers the first ones, then each arrival once, and past its tick ends at a pass without any', async () => {
    const executable = [tx('a'), tx('b')];
    const pool = { executable: () => [...executable] };
    const clock = { ms: 100 };
    const hashes = await offered(
      blockCandidates([...executable], pool, windowAt(clock, 100, 1000)),
      (hash) => {
        // Arrivals while the block runs, the last pass's included.
        if (hash === 'b') executable.push(tx('c'), tx('d'));
        if (hash === 'd') executable.push(tx('e'));
      },
    );
    expect(hashes).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('before its tick waits for arrivals instead of ending', async () => {
    const executable = [tx('a')];
    const pool = { executable: () => [...executable] };
    const clock = { ms: 0 };
    const waits: number[] = [];
    const window: FillWindow = {
      ...windowAt(clock, 50, 1000),
      arrival: async (at) => {
        waits.push(at);
        clock.ms += 10;
        if (clock.ms === 20) executable.push(tx('late'));
      },
    };
    expect(await offered(blockCandidates([tx('a')], pool, window))).toEqual(['a', 'late']);
    // Waited at 0 and 10, took 'late' at 20, then waited out the rest until the tick.
    expect(waits).toEqual([50, 50, 50, 50, 50]);
    expect(clock.ms).toBe(50);
  });

  it('past its tick waits graceMs after the last pass that found some, then ends', async () => {
    const executable = [tx('a')];
    const pool = { executable: () => [...executable] };
    const clock = { ms: 100 };
    const window: FillWindow = {
      ...windowAt(clock, 0, 1000),
      graceMs: 30,
      arrival: async () => {
        clock.ms += 10;
        if (clock.ms === 120) executable.push(tx('b'));
      },
    };
    expect(await offered(blockCandidates([tx('a')], pool, window))).toEqual(['a', 'b']);
    expect(clock.ms).toBe(150);
  });

  it('past its tick closes after a pass of fewer than minPass, and waits for nothing after one', async () => {
    const executable = [tx('a'), tx('b'), tx('c')];
    const pool = { executable: () => [...executable] };
    const clock = { ms: 100 };
    let waited = 0;
    const window: FillWindow = {
      ...windowAt(clock, 0, 1000),
      minPass: 3,
      graceMs: 30,
      arrival: async () => {
        waited += 1;
      },
    };
    const burst = await offered(blockCandidates([...executable], pool, window), (hash) => {
      if (hash === 'a') executable.push(tx('d'));
      if (hash === 'd') executable.push(tx('e'));
    });
    // The burst's first pass keeps it open for 'd'; a pass of one closes it before 'e'.
    expect(burst).toEqual(['a', 'b', 'c', 'd']);
    const steady = await offered(blockCandidates([tx('x')], { executable: () => [] }, window));
    expect(steady).toEqual(['x']);
    expect(waited).toBe(0);
  });

  it('after fillUntil begins one last pass, of whatever is executable then', async () => {
    const pool = askedPool();
    const clock = { ms: 500 };
    const hashes = await offered(blockCandidates([tx('a')], pool, windowAt(clock, 100, 400)));
    expect(hashes).toEqual(['a', 'n1']);
    expect(pool.asked).toBe(1);
  });

  it('after fillUntil begins no pass once a pass past its tick found fewer than minPass', async () => {
    const pool = askedPool();
    const clock = { ms: 200 };
    const window = { ...windowAt(clock, 100, 400), minPass: 2 };
    // The pass after 'a', past the tick, found one, fewer than two; it ran past fillUntil.
    const hashes = await offered(blockCandidates([tx('a')], pool, window), (hash) => {
      if (hash === 'n1') clock.ms = 450;
    });
    expect(hashes).toEqual(['a', 'n1']);
    expect(pool.asked).toBe(1);
  });

  it('stops asking when the block takes no more', async () => {
    const pool = askedPool();
    const clock = { ms: 0 };
    const taken: string[] = [];
    for await (const pooled of blockCandidates([tx('a')], pool, windowAt(clock, 0, 1000))) {
      taken.push(pooled.hashHex);
      if (taken.length === 3) break;
    }
    expect(taken).toEqual(['a', 'n1', 'n2']);
    expect(pool.asked).toBe(2);
  });
});
