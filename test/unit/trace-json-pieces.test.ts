/** A trace's result written as JSON in pieces on its thread: the same text, in parts. */
import { describe, expect, it } from '@jest/globals';
import { PART_CHARS } from '../../src/daemon/rpc/reply.js';
import { jsonPieces } from '../../src/daemon/trace/json-pieces.js';

const step = (pc: number) => ({
  pc,
  op: 'PUSH1',
  gas: 1000 - pc,
  gasCost: 3,
  depth: 1,
  stack: ['0x1', '0x2'],
  error: undefined,
});

describe('trace JSON in pieces', () => {
  it("gives JSON.stringify's text, in pieces of about a transport's part", () => {
    const structLog = {
      gas: 21_000,
      failed: false,
      returnValue: '0x',
      structLogs: Array.from({ length: 5000 }, (_, pc) => step(pc)),
    };
    const block = [
      { txHash: '0x01', result: structLog },
      { txHash: '0x02', result: { type: 'CALL', calls: [], to: undefined } },
    ];
    for (const value of [structLog, block, { small: [1, undefined, null] }, 'text', 7]) {
      const pieces = jsonPieces(value);
      expect(pieces.join('')).toBe(JSON.stringify(value));
      expect(pieces.slice(0, -1).every((piece) => piece.length >= PART_CHARS)).toBe(true);
    }
    expect(jsonPieces(structLog).length).toBeGreaterThan(3);
  });
});
