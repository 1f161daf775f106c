/**
 * EIP-55 checksummed addresses for values the node keeps (event attributes of every committed
 * transaction). `toChecksumAddress` of @ethereumjs/util builds its answer one character at a
 * time, which leaves V8 a chain of about forty string pieces (some 1.3 KiB) per address for as
 * long as the string lives; this builds it from one character array, so it is one flat string
 * of 42 bytes, and hashes with the node's WebAssembly keccak. A burst names the same few senders
 * and recipients thousands of times, so recent answers are kept.
 */
import type { Address } from '@ethereumjs/util';
import { keccak256 } from '../crypto/wasm-crypto.js';
import { LruCache } from './lru-cache.js';

/** Addresses whose checksummed form is kept: a block's senders and recipients, about 150 KiB. */
const RECENT_ADDRESSES = 1024;
const recent = new LruCache<string, string>(RECENT_ADDRESSES);

export function checksumAddress(address: Address): string {
  const lower = Buffer.from(address.bytes).toString('hex');
  let checksummed = recent.get(lower);
  if (checksummed === undefined) recent.set(lower, (checksummed = checksummedHex(lower)));
  return checksummed;
}

/** `lower`, 40 lower-case hex digits, in EIP-55 case with its 0x. */
function checksummedHex(lower: string): string {
  const hash = keccak256(Buffer.from(lower, 'latin1'));
  const chars = ['0x'];
  for (let i = 0; i < lower.length; i++) {
    // Nibble i of the hash decides the case of hex digit i.
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    chars.push(nibble >= 8 ? lower[i].toUpperCase() : lower[i]);
  }
  return chars.join('');
}
