/**
 * CoalescedSync: every caller is answered by a sync that started after it asked, and the syncs
 * asked for while one runs are done as one.
 */
import { describe, expect, it } from '@jest/globals';
import { CoalescedSync } from '../../src/daemon/storage/coalesced-sync.js';

/** A sync whose runs are held until released, counting how many started. */
function heldSync() {
  const releases: Array<(error?: Error) => void> = [];
  const sync = new CoalescedSync(
    () =>
      new Promise<void>((resolve, reject) =>
        releases.push((error) => (error ? reject(error) : resolve())),
      ),
  );
  return { sync, releases };
}

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('CoalescedSync', () => {
  it('runs one sync for a caller alone', async () => {
    const { sync, releases } = heldSync();
    const first = sync.sync();
    expect(releases).toHaveLength(1);
    releases[0]!();
    await first;
  });

  it('answers the callers who asked while a sync ran with one more sync, started after it', async () => {
    const { sync, releases } = heldSync();
    const first = sync.sync();
    const second = sync.sync();
    const third = sync.sync();
    expect(releases).toHaveLength(1);
    releases[0]!();
    await first;
    // The running sync began before the second and third asked: it does not answer them.
    expect(await settled(second)).toBe(false);
    expect(releases).toHaveLength(2);
    releases[1]!();
    await Promise.all([second, third]);
    expect(releases).toHaveLength(2);
  });

  it('starts afresh once idle, and passes a failure to the callers of that sync only', async () => {
    const { sync, releases } = heldSync();
    const failing = sync.sync();
    const waiting = sync.sync();
    releases[0]!(new Error('EIO'));
    await expect(failing).rejects.toThrow('EIO');
    releases[1]!();
    await waiting;
    const later = sync.sync();
    expect(releases).toHaveLength(3);
    releases[2]!();
    await later;
  });
});
