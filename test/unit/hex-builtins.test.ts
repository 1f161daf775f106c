/**
 * The hex codec the daemon's bundles install for @noble/hashes (`src/daemon/hex-builtins.ts`):
 * the same bytes and strings as the library's own per-byte code, and refusals where it refused.
 */
import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import '../../src/daemon/hex-builtins.js';

interface HexBuiltins {
  fromHex(hex: unknown): Uint8Array;
}
const fromHex = (hex: unknown) => (Uint8Array as unknown as HexBuiltins).fromHex(hex);
const toHex = (bytes: Uint8Array) => (bytes as unknown as { toHex(): string }).toHex();

/** The per-byte encoding @noble/hashes falls back to. */
const byByte = (bytes: Uint8Array) =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

describe('hex builtins', () => {
  it('encode and decode like the per-byte code, views and empty arrays included', () => {
    for (const length of [0, 1, 2, 20, 32, 33, 1000]) {
      const bytes = new Uint8Array(randomBytes(length));
      expect(toHex(bytes)).toBe(byByte(bytes));
      const decoded = fromHex(byByte(bytes));
      expect(decoded).toEqual(bytes);
      // A plain array over a buffer of its own, never a view into Buffer's shared pool.
      expect(decoded.constructor).toBe(Uint8Array);
      expect(decoded.buffer.byteLength).toBe(length);
    }
    const whole = new Uint8Array([0, 1, 0xab, 0xcd, 0xef, 0xff]);
    expect(toHex(whole.subarray(2, 5))).toBe('abcdef');
    expect(fromHex('ABcdEF')).toEqual(new Uint8Array([0xab, 0xcd, 0xef]));
  });

  it('refuse odd lengths, characters past the digits and what is not a string', () => {
    expect(() => fromHex('abc')).toThrow(SyntaxError);
    expect(() => fromHex('0x00')).toThrow(SyntaxError);
    expect(() => fromHex('zz')).toThrow(SyntaxError);
    expect(() => fromHex('00 ')).toThrow(SyntaxError);
    expect(() => fromHex(12)).toThrow(TypeError);
  });
});
