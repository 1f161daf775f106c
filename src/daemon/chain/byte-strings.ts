/**
 * Bytes as strings, made by Buffer's native encoders in one piece: `bytesToHex` of
 * `@ethereumjs/util` concatenates a string per byte, which on the paths every `eth_call` takes
 * was a good part of what a call allocated.
 *
 * The encoders are called on the array itself, not on a Buffer over its `.buffer`: V8 keeps the
 * bytes of a small typed array (up to 64) inside the object, and asking for its `.buffer` moves
 * them out into an ArrayBuffer of their own (a malloc, and one more buffer for every collection
 * to sweep); Node's encoders read such an array in place.
 */

interface NativeEncoders {
  hexSlice(this: Uint8Array, start: number, end: number): string;
  latin1Slice(this: Uint8Array, start: number, end: number): string;
}

/** Buffer's own encoders (what `buffer.toString('hex' | 'latin1')` calls). */
export const nativeEncoders = Buffer.prototype as unknown as NativeEncoders;

/** One Latin-1 character per byte: a map key half the length of hex. */
export function latin1Key(bytes: Uint8Array): string {
  return nativeEncoders.latin1Slice.call(bytes, 0, bytes.length);
}

/** Lower-case hex without `0x`, as EthereumJS's journal keys addresses. */
export function unprefixedHex(bytes: Uint8Array): string {
  return nativeEncoders.hexSlice.call(bytes, 0, bytes.length);
}
