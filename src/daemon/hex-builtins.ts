/**
 * `Uint8Array.prototype.toHex` and `Uint8Array.fromHex` (ES2026, not in Node 20), made with
 * Buffer's native hex codec, unless the runtime has its own. Imported first by each entry of the
 * daemon's bundles, before anything that hashes or encodes: @noble/hashes, whose `bytesToHex`
 * and `hexToBytes` EthereumJS uses for every hex string (map keys of its state and warm-address
 * caches included), looks for these once and uses them when present; without them it builds a
 * string per byte. On the daemon's `eth_call` path that was about a tenth of what a call
 * allocated (docs/benchmarks.md, "Distinct eth_call: batches").
 */

/** Whole bytes of hex digits, as `fromHex` accepts. */
const HEX_BYTES = /^(?:[0-9a-fA-F]{2})*$/;

function toHex(this: Uint8Array): string {
  return Buffer.from(this.buffer, this.byteOffset, this.byteLength).toString('hex');
}

function fromHex(hex: unknown): Uint8Array {
  if (typeof hex !== 'string') throw new TypeError(`hex string expected, got ${typeof hex}`);
  if (!HEX_BYTES.test(hex)) {
    throw new SyntaxError('hex string expected: an even number of hex digits and nothing else');
  }
  const bytes = new Uint8Array(hex.length / 2);
  Buffer.from(bytes.buffer).write(hex, 'hex');
  return bytes;
}

const builtins = Uint8Array as unknown as { fromHex?: unknown; prototype: { toHex?: unknown } };
if (typeof builtins.prototype.toHex !== 'function' || typeof builtins.fromHex !== 'function') {
  const method = { writable: true, configurable: true, enumerable: false };
  Object.defineProperty(Uint8Array.prototype, 'toHex', { ...method, value: toHex });
  Object.defineProperty(Uint8Array, 'fromHex', { ...method, value: fromHex });
}
