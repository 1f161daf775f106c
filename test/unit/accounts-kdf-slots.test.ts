import { describe, expect, it } from '@jest/globals';
import { KeyDerivationSlots } from '../../src/daemon/accounts/key-derivation-slots.js';
import { LimitExceededError } from '../../src/shared/errors.js';

/** A derivation the test finishes by hand. */
function manual(): { derive: () => Promise<string>; finish: (value: string) => void } {
  let finish: (value: string) => void = () => undefined;
  const promise = new Promise<string>((resolve) => (finish = resolve));
  return { derive: () => promise, finish };
}

describe('KeyDerivationSlots', () => {
  it('runs as many as allowed, queues the next ones in order and refuses the rest', async () => {
    const slots = new KeyDerivationSlots({ concurrency: 1, queue: 1 });
    const first = manual();
    const started: string[] = [];
    const running = slots.run(() => {
      started.push('first');
      return first.derive();
    });
    const queued = slots.run(async () => {
      started.push('second');
      return 'second done';
    });
    await expect(slots.run(async () => 'third')).rejects.toThrow(
      new LimitExceededError(
        'too many key derivations: 1 running and 1 waiting, the limits (--keystore.kdf-concurrency, --keystore.kdf-queue); try again shortly',
      ),
    );
    expect(started).toEqual(['first']);
    first.finish('first done');
    expect(await running).toBe('first done');
    expect(await queued).toBe('second done');
    expect(started).toEqual(['first', 'second']);
    // Every slot is free again: two at once run, one of them waiting.
    const again = manual();
    const a = slots.run(again.derive);
    const b = slots.run(async () => 'b');
    again.finish('a');
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
  });

  it('frees the slot of a derivation that fails', async () => {
    const slots = new KeyDerivationSlots({ concurrency: 1, queue: 0 });
    await expect(slots.run(() => Promise.reject(new Error('wrong')))).rejects.toThrow('wrong');
    expect(await slots.run(async () => 'ok')).toBe('ok');
  });
});
