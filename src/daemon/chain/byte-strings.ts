/**
 * Bytes as strings, made by Buffer's native encoders in one piece: `bytesToHex` of
 * `@ethereumjs/util` concatenates a string per byte, which on the paths every `eth_call` takes
 * was a good part of what a call allocated.
 */

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** One Latin-1 character per byte: a map key half the length of hex. */
export function latin1Key(bytes: Uint8Array): string {
  return bufferOf(bytes).toString('latin1');
}

/** Lower-case hex without `0x`, as EthereumJS's journal keys addresses. */
export function unprefixedHex(bytes: Uint8Array): string {
  return bufferOf(bytes).toString('hex');
}
