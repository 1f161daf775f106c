import { describe, expect, it } from '@jest/globals';
import { AnswerPacer } from '../../src/daemon/call-threads/answer-pacer.js';

/** A clock the answers move forward, as costly answers would. */
function fakeClock() {
  let ms = 0;
  return { now: () => ms, spend: (more: number) => (ms += more) };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('AnswerPacer', () => {
  it('settles answers at once while the turn has time left, then one per turn with other work between', async () => {
    const clock = fakeClock();
    const pacer = new AnswerPacer(5, clock.now);
    const log: string[] = [];
    const answer = (name: string) => () => {
      log.push(name);
      clock.spend(3);
    };
    for (const name of ['a', 'b', 'c', 'd']) pacer.settle(answer(name));
    setImmediate(() => log.push('other work'));
    expect(log).toEqual(['a', 'b']);
    await nextTurn();
    await nextTurn();
    await nextTurn();
    expect(log).toEqual(['a', 'b', 'c', 'other work', 'd']);
  });

  it('keeps the order of answers that arrive while others wait', async () => {
    const clock = fakeClock();
    const pacer = new AnswerPacer(5, clock.now);
    const log: string[] = [];
    pacer.settle(() => {
      log.push('first');
      clock.spend(10);
    });
    pacer.settle(() => log.push('second'));
    await nextTurn();
    pacer.settle(() => log.push('third'));
    for (let turn = 0; turn < 4; turn++) await nextTurn();
    expect(log).toEqual(['first', 'second', 'third']);
  });
});
