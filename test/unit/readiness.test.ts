import { describe, expect, it } from '@jest/globals';
import type { ProductionState } from '../../src/daemon/chain/production-health.js';
import { ReadinessProbe, type ReadinessSources } from '../../src/daemon/metrics/readiness.js';

const START_MS = 1_800_000_000_000;

function probeWith(overrides: Partial<ReadinessSources> & { headSeconds?: number } = {}) {
  const clock = { now: START_MS };
  let open = true;
  let production: ProductionState = { producing: true };
  const headSeconds = overrides.headSeconds ?? START_MS / 1000;
  const probe = new ReadinessProbe({
    chain: {
      isOpen: () => open,
      head: () => ({ number: 7n, timestampSeconds: BigInt(headSeconds) }),
    },
    production: () => production,
    blockTimeMs: 1000,
    emptyBlocks: true,
    maxHeadAgeBlocks: 5,
    now: () => clock.now,
    ...overrides,
  });
  return {
    probe,
    clock,
    close: () => (open = false),
    halt: (state: ProductionState) => (production = state),
  };
}

describe('readiness checks', () => {
  it('passes every check for an open chain with a recent head and listeners up', () => {
    const { probe } = probeWith();
    probe.addListener('json-rpc http', () => true);
    expect(probe.check()).toEqual({
      ready: true,
      failed: [],
      checks: {
        chain: { ok: true, detail: 'open at block 7' },
        block_production: { ok: true, detail: 'producing' },
        head_age: { ok: true, detail: 'no block for 0.0 s, limit 5 s' },
        listeners: { ok: true, detail: 'json-rpc http listening' },
      },
    });
  });

  it('fails head_age past the limit, counting a head older than the start from the start', () => {
    const { probe, clock } = probeWith({ headSeconds: 0 });
    clock.now = START_MS + 5_000;
    expect(probe.check().checks.head_age.ok).toBe(true);
    clock.now = START_MS + 5_100;
    expect(probe.check()).toMatchObject({
      ready: false,
      failed: ['head_age'],
      checks: { head_age: { ok: false, detail: 'no block for 5.1 s, limit 5 s' } },
    });
  });

  it('counts a head stamped ahead of the clock from when it was first seen', () => {
    // Sub-second blocks take their parent's second plus one: the head can be minutes ahead.
    const { probe, clock } = probeWith({ headSeconds: START_MS / 1000 + 600 });
    expect(probe.check().checks.head_age.ok).toBe(true);
    clock.now += 5_100;
    expect(probe.check().checks.head_age).toEqual({
      ok: false,
      detail: 'no block for 5.1 s, limit 5 s',
    });
  });

  it('allows a second of slack for whole-second timestamps at short block times', () => {
    const { probe, clock } = probeWith({ blockTimeMs: 100 });
    clock.now = START_MS + 1_100;
    expect(probe.check().checks.head_age).toEqual({
      ok: true,
      detail: 'no block for 1.1 s, limit 1.1 s',
    });
  });

  it('does not check head age when blocks are made only for transactions', () => {
    for (const overrides of [{ blockTimeMs: 0 }, { emptyBlocks: false }]) {
      const { probe, clock } = probeWith({ ...overrides, headSeconds: 0 });
      clock.now = START_MS + 3_600_000;
      expect(probe.check().checks.head_age).toEqual({
        ok: true,
        detail: 'not checked: blocks are made only for transactions',
      });
    }
  });

  it('names a stopped producer, a closed store and a listener that is down', () => {
    const { probe, close, halt } = probeWith();
    probe.addListener('rest', () => false);
    probe.addListener('metrics', () => true);
    halt({
      producing: false,
      reason: 'stopped by miner_stop',
      since: '2027-01-15T08:00:00.000Z',
      failures: 0,
    });
    close();
    const readiness = probe.check();
    expect(readiness.failed).toEqual(['chain', 'block_production', 'listeners']);
    expect(readiness.checks.chain.detail).toBe('chain store closed');
    expect(readiness.checks.block_production.detail).toBe(
      'stopped since 2027-01-15T08:00:00.000Z: stopped by miner_stop',
    );
    expect(readiness.checks.listeners.detail).toBe('not listening: rest');
  });
});
