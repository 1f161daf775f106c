/**
 * `Uint8Array.prototype.toHex` and `Uint8Array.fromHex` (ES2026, not in Node 20), made with
 * Buffer's native hex codec, unless the runtime has its own. Imported first by each entry of the
 * daemon's bundles, before anything that hashes or encodes: @noble/hashes, whose `bytesToHex`
 * and `hexToBytes` EthereumJS uses for every hex string (map keys of its state and warm-address
 * caches included), looks for these once and uses them when present; without them it builds a
 * string per byte. On the daemon's `eth_call` path that was about a tenth of what a call
 * allocated (docs/benchmarks.md, "Distinct eth_call: batches").
 */

import { unprefixedHex } from './chain/byte-strings.js';

/** Whole bytes of hex digits, as `fromHex` accepts. */
const HEX_BYTES = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Neither function touches a typed array's `.buffer`: that would move the bytes of a small array
 * (V8 keeps up to 64 inside the object) out into an ArrayBuffer of their own, a malloc and one
 * more buffer for the collector to sweep, for every key EthereumJS makes.
 */
function toHex(this: Uint8Array): string {
  return unprefixedHex(this);
}

function fromHex(hex: unknown): Uint8Array {
  if (typeof hex !== 'string') throw new TypeError(`hex string expected, got ${typeof hex}`);
  if (!HEX_BYTES.test(hex)) {
    throw new SyntaxError('hex string expected: an even number of hex digits and nothing else');
  }
  // Decoded into Buffer's shared pool, then copied into an array of its own.
  const bytes = new Uint8Array(hex.length / 2);
  bytes.set(Buffer.from(hex, 'hex'));
  return bytes;
}

const builtins = Uint8Array as unknown as { fromHex?: unknown; prototype: { toHex?: unknown } };
if (typeof builtins.prototype.toHex !== 'function' || typeof builtins.fromHex !== 'function') {
  const method = { writable: true, configurable: true, enumerable: false };
  Object.defineProperty(Uint8Array.prototype, 'toHex', { ...method, value: toHex });
  Object.defineProperty(Uint8Array, 'fromHex', { ...method, value: fromHex });
}
