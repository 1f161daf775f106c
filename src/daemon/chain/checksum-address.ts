/**
 * EIP-55 checksummed addresses for values the node keeps (event attributes of every committed
 * transaction). `toChecksumAddress` of @ethereumjs/util builds its answer one character at a
 * time, which leaves V8 a chain of about forty string pieces (some 1.3 KiB) per address for as
 * long as the string lives; this builds it from one character array, so it is one flat string
 * of 42 bytes, and hashes with the node's WebAssembly keccak.
 */
import type { Address } from '@ethereumjs/util';
import { keccak256 } from '../crypto/wasm-crypto.js';

export function checksumAddress(address: Address): string {
  const lower = Buffer.from(address.bytes).toString('hex');
  const hash = keccak256(Buffer.from(lower, 'latin1'));
  const chars = ['0x'];
  for (let i = 0; i < lower.length; i++) {
    // Nibble i of the hash decides the case of hex digit i.
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    chars.push(nibble >= 8 ? lower[i].toUpperCase() : lower[i]);
  }
  return chars.join('');
}
