import { beforeAll, describe, expect, it } from '@jest/globals';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { createChainCommon } from '../../src/daemon/chain/common.js';
import type { FlatStateView } from '../../src/daemon/chain/flat-state.js';
import { FlatStateManager } from '../../src/daemon/chain/flat-state-manager.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';

const alice = new Address(hexToBytes(`0x${'a1'.repeat(20)}`));
const bob = new Address(hexToBytes(`0x${'b0'.repeat(20)}`));

/** Flat tables that describe no root, so every read goes to the caches or the trie. */
const NO_FLAT_STATE = {
  account: () => undefined,
  slot: () => undefined,
} as unknown as FlatStateView;

function executingState(): FlatStateManager {
  return new FlatStateManager({
    trie: new MerklePatriciaTrie({ useKeyHashing: true }),
    common: createChainCommon(9000n),
    flat: NO_FLAT_STATE,
    executing: true,
  });
}

// Reads of cached accounts reuse what the cached bytes decoded to (flat-state-manager.ts).
describe('flat state manager: cached account reads', () => {
  beforeAll(() => initCrypto());

  it('hands each read an account of its own', async () => {
    const state = executingState();
    await state.putAccount(alice, new Account(1n, 5n));
    const first = (await state.getAccount(alice))!;
    first.balance = 99n;
    first.nonce = 7n;
    const second = (await state.getAccount(alice))!;
    expect(second.balance).toBe(5n);
    expect(second.nonce).toBe(1n);
    expect(second).not.toBe(first);
  });

  it('keeps what was written when the caller changes its account afterwards', async () => {
    const state = executingState();
    const written = new Account(3n, 40n);
    await state.putAccount(alice, written);
    written.balance = 0n;
    written.nonce = 9n;
    const read = (await state.getAccount(alice))!;
    expect(read.balance).toBe(40n);
    expect(read.nonce).toBe(3n);
  });

  it('reads the reverted account after a checkpoint is reverted', async () => {
    const state = executingState();
    await state.putAccount(alice, new Account(0n, 5n));
    expect((await state.getAccount(alice))!.balance).toBe(5n);
    await state.checkpoint();
    await state.putAccount(alice, new Account(1n, 7n));
    await state.putAccount(bob, new Account(0n, 3n));
    expect((await state.getAccount(alice))!.balance).toBe(7n);
    await state.revert();
    expect((await state.getAccount(alice))!.balance).toBe(5n);
    expect((await state.getAccount(alice))!.nonce).toBe(0n);
    expect(await state.getAccount(bob)).toBeUndefined();
  });

  it('gives the state root of the library state manager for the same writes', async () => {
    const state = executingState();
    const plain = new MerkleStateManager({ common: createChainCommon(9000n) });
    for (const manager of [state, plain]) {
      await manager.checkpoint();
      await manager.putAccount(alice, new Account(0n, 5n));
      const read = (await manager.getAccount(alice))!;
      read.balance += 10n;
      await manager.putAccount(alice, read);
      await manager.putAccount(bob, new Account(2n, 1n));
      await manager.commit();
    }
    expect((await state.getAccount(alice))!.balance).toBe(15n);
    expect(bytesToHex(await state.getStateRoot())).toBe(bytesToHex(await plain.getStateRoot()));
  });
});
