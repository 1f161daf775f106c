/**
 * An EIP-1186 proof verifier written for the tests, independent of the node's trie code: it walks
 * the proof's nodes from a root hash, checking each node's keccak256 against the reference that
 * led to it, and returns the value stored under the key (or null for a proof of absence).
 */
import { decodeRlp, encodeRlp, getBytes, hexlify, keccak256, toBeHex, zeroPadValue } from 'ethers';
import type { RlpStructuredData } from 'ethers';

/** Fields of an account as committed in the state trie. */
export interface ProvenAccount {
  nonce: bigint;
  balance: bigint;
  storageRoot: string;
  codeHash: string;
}

function nibblesOf(bytes: Uint8Array): number[] {
  return [...bytes].flatMap((byte) => [byte >> 4, byte & 0x0f]);
}

/** Decodes a hex-prefix encoded path; the flag nibble tells leaf from extension and odd length. */
function decodeCompactPath(encoded: string): { leaf: boolean; nibbles: number[] } {
  const nibbles = nibblesOf(getBytes(encoded));
  const flag = nibbles[0];
  return { leaf: flag >= 2, nibbles: nibbles.slice(flag % 2 === 1 ? 1 : 2) };
}

function asItems(data: RlpStructuredData, what: string): RlpStructuredData[] {
  if (!Array.isArray(data)) throw new Error(`proof node is not a list (${what})`);
  return data;
}

/**
 * Follows `key` (already the trie key: keccak256 of the address or slot) from `rootHash` through
 * `proof` and returns the RLP value stored there, or null when the proof shows there is none.
 * Throws when a node is missing or does not hash to the reference that points at it.
 */
export function verifyProof(
  rootHash: string,
  key: string,
  proof: readonly string[],
): string | null {
  const byHash = new Map(proof.map((node) => [keccak256(node), node]));
  const path = nibblesOf(getBytes(key));
  let reference: RlpStructuredData = rootHash;
  let position = 0;
  for (;;) {
    let node: RlpStructuredData;
    if (Array.isArray(reference)) {
      // Nodes shorter than 32 bytes are embedded in their parent instead of hashed.
      node = reference;
    } else {
      if (reference === '0x') return null;
      const encoded = byHash.get(reference.toLowerCase());
      if (encoded === undefined) throw new Error(`proof lacks the node with hash ${reference}`);
      node = decodeRlp(encoded);
    }
    const items = asItems(node, 'branch or short node');
    if (items.length === 17) {
      if (position === path.length) return items[16] === '0x' ? null : (items[16] as string);
      reference = items[path[position]];
      position += 1;
      continue;
    }
    if (items.length !== 2) throw new Error(`proof node has ${items.length} items`);
    const { leaf, nibbles } = decodeCompactPath(items[0] as string);
    const rest = path.slice(position, position + nibbles.length);
    if (rest.length !== nibbles.length || rest.some((nibble, i) => nibble !== nibbles[i]))
      return null;
    position += nibbles.length;
    if (leaf) return position === path.length ? (items[1] as string) : null;
    reference = items[1];
  }
}

/** Verifies an account proof against a state root; null when the proof shows no account. */
export function verifyAccountProof(
  stateRoot: string,
  address: string,
  accountProof: readonly string[],
): ProvenAccount | null {
  const value = verifyProof(stateRoot, keccak256(address), accountProof);
  if (value === null) return null;
  const [nonce, balance, storageRoot, codeHash] = asItems(decodeRlp(value), 'account') as string[];
  return {
    nonce: nonce === '0x' ? 0n : BigInt(nonce),
    balance: balance === '0x' ? 0n : BigInt(balance),
    storageRoot: hexlify(storageRoot),
    codeHash: hexlify(codeHash),
  };
}

/** Verifies a storage proof against an account's storage root and returns the slot's value. */
export function verifyStorageProof(
  storageRoot: string,
  slot: bigint,
  proof: readonly string[],
): bigint {
  const value = verifyProof(storageRoot, keccak256(zeroPadValue(toBeHex(slot), 32)), proof);
  if (value === null) return 0n;
  const stored = decodeRlp(value) as string;
  return stored === '0x' ? 0n : BigInt(stored);
}

/** Root hash of an empty trie: keccak256 of the RLP of the empty string. */
export const EMPTY_TRIE_ROOT = keccak256(encodeRlp('0x'));
