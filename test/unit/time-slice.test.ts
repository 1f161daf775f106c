import { describe, expect, it } from '@jest/globals';
import { TimeSlicer } from '../../src/daemon/time-slice.js';

describe('main-thread time slices', () => {
  it("lets work carry on at once while the turn's slice lasts, counted from its first pause", () => {
    let now = 100;
    const slicer = new TimeSlicer(4, () => now);
    expect(slicer.pause()).toBeUndefined();
    now = 103;
    expect(slicer.pause()).toBeUndefined();
  });

  it('past the budget, waits until I/O and timers queued meanwhile have had their turn', async () => {
    let now = 0;
    const slicer = new TimeSlicer(4, () => now);
    expect(slicer.pause()).toBeUndefined();
    now = 5;
    const order: string[] = [];
    setImmediate(() => order.push('queued before'));
    const paused = slicer.pause();
    expect(paused).toBeInstanceOf(Promise);
    await paused;
    order.push('resumed');
    expect(order).toEqual(['queued before', 'resumed']);
    expect(slicer.pause()).toBeUndefined();
  });

  it('gives one slice per turn to all who wait, resuming first those it had no room for', async () => {
    let now = 0;
    const slicer = new TimeSlicer(4, () => now);
    expect(slicer.pause()).toBeUndefined();
    now = 10;
    const order: string[] = [];
    const busy = (async () => {
      await slicer.pause();
      order.push('busy step 1');
      now += 10;
      await slicer.pause();
      order.push('busy step 2');
    })();
    const other = (async () => {
      await slicer.pause();
      order.push('other');
    })();
    // A newcomer while others wait takes its place behind them.
    expect(slicer.pause()).toBeInstanceOf(Promise);
    await Promise.all([busy, other]);
    expect(order).toEqual(['busy step 1', 'other', 'busy step 2']);
  });

  it('lets a queue of its own carry on while the slice has room, even with others in line', async () => {
    let now = 0;
    const slicer = new TimeSlicer(4, () => now);
    expect(slicer.pause()).toBeUndefined();
    now = 10;
    const inLine = slicer.pause();
    expect(inLine).toBeInstanceOf(Promise);
    // The same turn seen with room left (the clock is the test's): a newcomer to `pause` takes
    // its place in line, the queue's own step goes on.
    now = 1;
    expect(slicer.pause()).toBeInstanceOf(Promise);
    expect(slicer.pauseWhenSpent()).toBeUndefined();
    now = 10;
    const spent = slicer.pauseWhenSpent();
    expect(spent).toBeInstanceOf(Promise);
    await Promise.all([inLine, spent]);
  });

  it("resumes a queue's own step first in the next turn, before those already in line", async () => {
    let now = 0;
    const slicer = new TimeSlicer(4, () => now);
    expect(slicer.pause()).toBeUndefined();
    now = 10;
    const order: string[] = [];
    const inLine = (async () => {
      await slicer.pause();
      order.push('in line');
      now += 10;
    })();
    const queue = (async () => {
      await slicer.pauseWhenSpent();
      order.push('queue step');
    })();
    await Promise.all([inLine, queue]);
    expect(order).toEqual(['queue step', 'in line']);
  });

  it("gives a queue's steps a turn of their own, so other work does not run between their awaits", async () => {
    let now = 0;
    const slicer = new TimeSlicer(4, () => now);
    expect(slicer.pause()).toBeUndefined();
    now = 10;
    const order: string[] = [];
    // Other work that spends the whole slice as soon as it runs.
    const other = (async () => {
      await slicer.pause();
      order.push('other');
      now += 10;
    })();
    const queue = (async () => {
      await slicer.pauseWhenSpent();
      order.push('queue step 1');
      await null;
      await null;
      // Still in its own turn: the other work has not spent the slice in between.
      expect(slicer.pauseWhenSpent()).toBeUndefined();
      order.push('queue step 2');
    })();
    await Promise.all([other, queue]);
    expect(order).toEqual(['queue step 1', 'queue step 2', 'other']);
  });
});
