/**
 * `trieLeaves`, what the flat state tables are built from and checked against, against the
 * trie's own reads: every key put and not deleted comes out once, as keccak(key), in key order,
 * with its value; nothing else does.
 */
import { describe, expect, it } from '@jest/globals';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { ValueEncoding, bytesToHex } from '@ethereumjs/util';
import { keccak256 } from 'ethers';
import { trieLeaves } from '../../src/daemon/chain/trie-leaves.js';
import { TrieNodeOverlay } from '../../src/daemon/chain/trie-node-overlay.js';

function newTrie(): { trie: MerklePatriciaTrie; nodes: TrieNodeOverlay } {
  const nodes = new TrieNodeOverlay(() => undefined);
  const trie = new MerklePatriciaTrie({
    db: nodes,
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
  });
  return { trie, nodes };
}

/** Key number `n` as 32 bytes. */
const keyOf = (n: number): Uint8Array => {
  const key = new Uint8Array(32);
  new DataView(key.buffer).setUint32(28, n);
  return key;
};

describe('trieLeaves', () => {
  it('gives nothing for the empty trie', () => {
    const { trie, nodes } = newTrie();
    expect([...trieLeaves((key) => nodes.read(key), trie.root())]).toEqual([]);
  });

  it('gives every leaf of a trie after puts, overwrites and deletes, in key order', async () => {
    const { trie, nodes } = newTrie();
    const expected = new Map<string, string>();
    for (let n = 0; n < 3000; n++) {
      // Values of 1 to 40 bytes, as storage values and accounts come.
      const value = new Uint8Array(1 + (n % 40)).fill(n % 251);
      await trie.put(keyOf(n), value);
      expected.set(keccak256(keyOf(n)), bytesToHex(value));
    }
    for (let n = 0; n < 3000; n += 3) {
      await trie.del(keyOf(n));
      expected.delete(keccak256(keyOf(n)));
    }
    for (let n = 1; n < 3000; n += 7) {
      const value = Uint8Array.of(n % 256, 1);
      await trie.put(keyOf(n), value);
      expected.set(keccak256(keyOf(n)), bytesToHex(value));
    }
    const leaves = [...trieLeaves((key) => nodes.read(key), trie.root())].map(
      ([key, value]) => [bytesToHex(key), bytesToHex(value)] as const,
    );
    expect(leaves).toEqual([...expected].sort(([a], [b]) => (a < b ? -1 : 1)));
  });

  it('reports a missing node as a damaged store', async () => {
    const { trie } = newTrie();
    await trie.put(keyOf(1), Uint8Array.of(1));
    await trie.put(keyOf(2), Uint8Array.of(2));
    expect(() => [...trieLeaves(() => undefined, trie.root())]).toThrow(/trie node .* is missing/);
  });
});
