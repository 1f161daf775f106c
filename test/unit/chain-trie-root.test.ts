import { beforeAll, describe, expect, it } from '@jest/globals';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { initCrypto, keccak256 } from '../../src/daemon/crypto/wasm-crypto.js';
import { OrderedTrieRoot } from '../../src/daemon/chain/ordered-trie-root.js';

describe('ordered trie root', () => {
  beforeAll(() => initCrypto());

  it.each([0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 300, 1000])(
    'equals the general trie for %i entries of mixed sizes',
    async (count) => {
      const values = Array.from({ length: count }, (_, i) =>
        Uint8Array.from({ length: ((i * 7) % 45) + 1 }, (_, j) => (i * 31 + j) & 0xff),
      );
      const trie = new MerklePatriciaTrie();
      for (const [i, value] of values.entries()) await trie.put(RLP.encode(i), value);
      const roots = new OrderedTrieRoot(keccak256);
      expect(bytesToHex(roots.ofList(values))).toBe(bytesToHex(trie.root()));
      let pauses = 0;
      const sliced = await roots.ofListSliced(values, () => {
        pauses++;
        return new Promise((resolve) => setImmediate(resolve));
      });
      expect(bytesToHex(sliced)).toBe(bytesToHex(trie.root()));
      // One pause per branch node: none for a single leaf, several for a large list.
      if (count <= 1) expect(pauses).toBe(0);
      if (count >= 300) expect(pauses).toBeGreaterThan(16);
    },
  );

  // Values as long as transactions and receipts (and one past a two-byte length) take the
  // node encoding written without the library's encoder.
  it.each([1, 2, 17, 130, 1500])('equals the general trie for %i long values', async (count) => {
    const values = Array.from({ length: count }, (_, i) =>
      Uint8Array.from(
        { length: i === 1 ? 70_000 : ((i * 53) % 400) + 50 },
        (_, j) => (i + j) & 0xff,
      ),
    );
    const trie = new MerklePatriciaTrie();
    for (const [i, value] of values.entries()) await trie.put(RLP.encode(i), value);
    expect(bytesToHex(new OrderedTrieRoot(keccak256).ofList(values))).toBe(bytesToHex(trie.root()));
  });
});
