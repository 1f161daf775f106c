/**
 * EIP-55 checksummed addresses, with keccak-256 from @noble/hashes: the CLI checks and prints
 * addresses on every chain command, and loading ethers for it cost more than the call itself.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** True for 0x followed by 40 hex digits, in any case. */
export function isAddress(text: string): boolean {
  return ADDRESS.test(text);
}

/** The EIP-55 form of a 20-byte address given in any case. */
export function checksumAddress(address: string): `0x${string}` {
  const lower = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let result = '0x';
  for (let i = 0; i < lower.length; i++) {
    // Nibble i of the hash: the high nibble of byte i/2 for even i, the low one for odd i.
    const nibble = i % 2 === 0 ? hash[i >> 1] >> 4 : hash[i >> 1] & 0x0f;
    result += nibble >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return result as `0x${string}`;
}

/**
 * Whether a checksum, if present, is right: all-lower and all-upper addresses carry none
 * (EIP-55), mixed case must match exactly.
 */
export function hasValidChecksum(address: string): boolean {
  const digits = address.slice(2);
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return true;
  return checksumAddress(address) === address;
}
