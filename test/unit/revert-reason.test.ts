/**
 * The reason a revert's message gives: `Error(string)` as its text, `Panic(uint256)` as geth
 * words the compiler's panic codes (clients and test suites match on these words).
 */
import { describe, expect, it } from '@jest/globals';
import { hexToBytes } from '@ethereumjs/util';
import { decodeRevertReason } from '../../src/daemon/chain/call.js';

const panic = (code: number): Uint8Array =>
  hexToBytes(`0x4e487b71${code.toString(16).padStart(64, '0')}`);

describe('decodeRevertReason', () => {
  it.each([
    [0x00, 'generic panic'],
    [0x01, 'assert(false)'],
    [0x11, 'arithmetic underflow or overflow'],
    [0x12, 'division or modulo by zero'],
    [0x21, 'enum overflow'],
    [0x22, 'invalid encoded storage byte array accessed'],
    [0x31, 'out-of-bounds array access; popping on empty array'],
    [0x32, 'out-of-bounds access of an array or bytesN'],
    [0x41, 'out of memory'],
    [0x51, 'uninitialized function'],
  ])('words panic code %d as geth does', (code, reason) => {
    expect(decodeRevertReason(panic(code))).toBe(reason);
  });

  it('names a panic code the compiler does not use', () => {
    expect(decodeRevertReason(panic(0x99))).toBe('unknown panic code: 0x99');
  });

  it('gives the text of Error(string)', () => {
    const data = hexToBytes(
      `0x08c379a0${'20'.padStart(64, '0')}${'2'.padStart(64, '0')}6869${'0'.repeat(60)}`,
    );
    expect(decodeRevertReason(data)).toBe('hi');
  });

  it('gives no reason for a truncated panic', () => {
    expect(decodeRevertReason(panic(1).subarray(0, 35))).toBeUndefined();
  });
});
