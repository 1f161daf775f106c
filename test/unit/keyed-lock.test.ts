/** KeyedLock: work on one key runs one at a time in order, other keys run alongside. */
import { expect, it } from '@jest/globals';
import { KeyedLock } from '../../src/daemon/storage/keyed-lock.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

it('runs work on one key in order, one at a time, other keys meanwhile, and forgets idle keys', async () => {
  const lock = new KeyedLock();
  const order: string[] = [];
  const gate = deferred();
  const first = lock.run('a', async () => {
    order.push('a1 start');
    await gate.promise;
    order.push('a1 end');
  });
  const second = lock.run('a', async () => {
    order.push('a2');
    return 2;
  });
  await lock.run('b', async () => order.push('b'));
  expect(order).toEqual(['a1 start', 'b']);
  expect(lock.queued('a')).toBe(2);
  gate.resolve();
  expect(await second).toBe(2);
  await first;
  expect(order).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  expect(lock.queued('a')).toBe(0);
});

it('a failed piece of work releases the key for the next', async () => {
  const lock = new KeyedLock();
  const failed = lock.run('a', () => Promise.reject(new Error('disk gone')));
  const next = lock.run('a', async () => 'ran');
  await expect(failed).rejects.toThrow('disk gone');
  expect(await next).toBe('ran');
  expect(lock.queued('a')).toBe(0);
});
