import { describe, expect, it } from '@jest/globals';
import { AnswerBatch } from '../../src/daemon/call-threads/answer-batch.js';

/** A batch of answers that records what it sends. */
function recording(waitMs: number): { held: AnswerBatch<string>; sent: string[][] } {
  const sent: string[][] = [];
  return { held: new AnswerBatch<string>(waitMs, (answers) => sent.push(answers)), sent };
}

describe('AnswerBatch', () => {
  it("holds one client's answers while its calls follow each other, and sends them at the end", () => {
    const { held, sent } = recording(2);
    for (const [index, answer] of ['a1', 'a2', 'a3'].entries()) {
      held.beforeCall('a', 10 + index * 0.5);
      held.add(answer, 'a', 10.4 + index * 0.5);
    }
    expect(sent).toEqual([]);
    held.flush();
    expect(sent).toEqual([['a1', 'a2', 'a3']]);
    held.flush();
    expect(sent).toHaveLength(1);
  });

  it("sends what it holds before another client's call begins", () => {
    const { held, sent } = recording(2);
    held.beforeCall('a', 0);
    held.add('a1', 'a', 0.1);
    held.beforeCall('b', 0.1);
    // a1 is on its way before b's call, however long that one runs.
    expect(sent).toEqual([['a1']]);
    held.add('b1', 'b', 900);
    held.beforeCall('b', 900);
    held.add('b2', 'b', 900.1);
    held.flush();
    expect(sent).toEqual([['a1'], ['b1', 'b2']]);
  });

  it('sends what it holds once the first answer has waited its time', () => {
    const { held, sent } = recording(2);
    held.beforeCall('a', 0);
    held.add('a1', 'a', 0.5);
    held.beforeCall('a', 1);
    held.add('a2', 'a', 2.4);
    expect(sent).toEqual([]);
    held.beforeCall('a', 2.5);
    expect(sent).toEqual([['a1', 'a2']]);
  });
});
