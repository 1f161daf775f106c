/**
 * The leaves of a Merkle-Patricia trie, read synchronously from the node table: what the flat
 * state tables are built from and checked against.
 *
 * The state trie hashes its keys, so a leaf's path is keccak(address) (or keccak(slot) in a
 * storage trie), which is how the flat tables are keyed: they can be built from the trie alone,
 * without the preimages.
 */
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP, bytesToUnprefixedHex, equalsBytes } from '@ethereumjs/util';
import { DamagedStoreError } from '../../shared/errors.js';
import type { TrieNodeReader } from './trie-node-overlay.js';

type RlpNode = Uint8Array | RlpNode[];

/** The path of a hashed-key trie's leaf, in nibbles. */
const LEAF_PATH_NIBBLES = 64;

/** Every `[key, value]` leaf of the trie at `root`, in key order. */
export function* trieLeaves(
  readNode: TrieNodeReader,
  root: Uint8Array,
): Generator<[Uint8Array, Uint8Array]> {
  if (equalsBytes(root, KECCAK256_RLP)) return;
  yield* leavesOf(readNode, nodeAt(readNode, root), []);
}

function nodeAt(readNode: TrieNodeReader, hash: Uint8Array): RlpNode {
  const encoded = readNode(bytesToUnprefixedHex(hash));
  if (encoded === undefined) {
    throw new DamagedStoreError(`trie node ${bytesToUnprefixedHex(hash)} is missing`);
  }
  return RLP.decode(encoded) as RlpNode;
}

function* leavesOf(
  readNode: TrieNodeReader,
  node: RlpNode,
  path: number[],
): Generator<[Uint8Array, Uint8Array]> {
  if (!Array.isArray(node)) return;
  if (node.length === 17) {
    for (let nibble = 0; nibble < 16; nibble++) {
      yield* childLeaves(readNode, node[nibble], [...path, nibble]);
    }
    return;
  }
  const [encodedPath, next] = node as [Uint8Array, RlpNode];
  // Hex-prefix encoding: flag 2 marks a leaf, flag 1 an odd path whose first nibble shares
  // the flag's byte.
  const flag = encodedPath[0] >> 4;
  const nibbles = [...path];
  if (flag & 1) nibbles.push(encodedPath[0] & 0x0f);
  for (const byte of encodedPath.subarray(1)) nibbles.push(byte >> 4, byte & 0x0f);
  if (flag & 2) {
    if (nibbles.length !== LEAF_PATH_NIBBLES)
      throw new DamagedStoreError('trie leaf of bad length');
    yield [pathBytes(nibbles), next as Uint8Array];
    return;
  }
  yield* childLeaves(readNode, next, nibbles);
}

function* childLeaves(
  readNode: TrieNodeReader,
  child: RlpNode,
  path: number[],
): Generator<[Uint8Array, Uint8Array]> {
  if (Array.isArray(child)) yield* leavesOf(readNode, child, path);
  else if (child.length === 32) yield* leavesOf(readNode, nodeAt(readNode, child), path);
}

function pathBytes(nibbles: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(nibbles.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1];
  return bytes;
}
