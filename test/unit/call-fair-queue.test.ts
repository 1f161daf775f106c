import { describe, expect, it } from '@jest/globals';
import { FairQueue } from '../../src/daemon/call-threads/fair-queue.js';

function drain(queue: FairQueue<string>): string[] {
  const taken: string[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) taken.push(item);
  return taken;
}

describe('FairQueue', () => {
  it('takes turns between callers, a caller arriving with nothing queued first', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    expect(queue.shift()).toBe('a1');
    queue.push('b', 'b1');
    queue.push('b', 'b2');
    queue.push('c', 'c1');
    expect(queue.size).toBe(6);
    expect(queue.sizeOf('a')).toBe(3);
    expect(drain(queue)).toEqual(['c1', 'b1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.size).toBe(0);
    expect(queue.sizeOf('a')).toBe(0);
  });

  it('puts items back at the front of their caller, whose turn is next', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    queue.pushFront('a', 'a1');
    queue.pushFront('c', 'c0');
    expect(drain(queue)).toEqual(['c0', 'a1', 'b1', 'a2']);
  });
});
