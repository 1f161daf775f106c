/**
 * What the daemon's edit to EthereumJS's state manager (scripts/ethereumjs-patches.js,
 * docs/evm-patches.md) must keep, against a real daemon: storage written during a block reaches
 * the storage trie once, at the block's end, so a block whose transactions write slots, zero one
 * and write one in a transaction that reverts commits exactly the slots that survived. The
 * storage root is checked against a trie built here from the expected slots, and every slot's
 * proof against that root.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { devWallet, signDynamicFeeTx, stopMining, waitForReceipt } from '../helpers/dev-chain.js';
import { verifyStorageProof } from '../helpers/merkle-proof.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Stores word 1 of its input at the slot of word 0, then reverts if word 2 is not zero:
 * CALLDATALOAD 0x20, CALLDATALOAD 0, SSTORE, CALLDATALOAD 0x40, JUMPI 0x0e, STOP,
 * 0x0e: JUMPDEST, REVERT(0, 0).
 */
const STORE_THEN_MAYBE_REVERT = '0x60203560003555604035600e57005b600080fd';

const word = (value: bigint) => value.toString(16).padStart(64, '0');

interface StorageProof {
  storageHash: string;
  storageProof: Array<{ key: string; value: string; proof: string[] }>;
}

/** The storage root of exactly `slots` (slot to non-zero value), computed here. */
async function storageRootOf(slots: Map<bigint, bigint>): Promise<string> {
  const trie = await createMPT({ useKeyHashing: true });
  for (const [slot, value] of slots) {
    await trie.put(
      setLengthLeft(hexToBytes(`0x${word(slot)}`), 32),
      RLP.encode(bigIntToUnpaddedBytes(value)),
    );
  }
  return bytesToHex(trie.root());
}

describe('EthereumJS state manager edit', () => {
  let daemon: TestDaemon;
  const target = `0x${'5e'.repeat(19)}01`;
  const wallet = devWallet(2);
  let nonce = 0;

  /** Sends `store(slot, value, revert)` to the pool; resolves with its hash. */
  const send = async (slot: bigint, value: bigint, revert: boolean) =>
    daemon.rpc.call<string>('eth_sendRawTransaction', [
      await signDynamicFeeTx(wallet, {
        to: target,
        nonce: nonce++,
        gasLimit: 100_000n,
        data: `0x${word(slot)}${word(value)}${word(revert ? 1n : 0n)}`,
      }),
    ]);

  /** Mines one block of `hashes` and returns their statuses. */
  const mine = async (hashes: string[]) => {
    await daemon.authedRpc.call('evm_mine');
    const receipts = await Promise.all(hashes.map((hash) => waitForReceipt(daemon.rpc, hash)));
    expect(new Set(receipts.map((receipt) => receipt.blockNumber)).size).toBe(1);
    return receipts.map((receipt) => receipt.status);
  };

  /** Checks the committed storage root and every slot's proof against `expected`. */
  const expectStorage = async (expected: Map<bigint, bigint>, absent: bigint[]) => {
    const slots = [...expected.keys(), ...absent];
    const proof = await daemon.rpc.call<StorageProof>('eth_getProof', [
      target,
      slots.map((slot) => `0x${word(slot)}`),
      'latest',
    ]);
    expect(proof.storageHash).toBe(await storageRootOf(expected));
    slots.forEach((slot, index) => {
      const { proof: nodes } = proof.storageProof[index];
      expect(verifyStorageProof(proof.storageHash, slot, nodes)).toBe(expected.get(slot) ?? 0n);
    });
  };

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
    await daemon.authedRpc.call('hardhat_setCode', [target, STORE_THEN_MAYBE_REVERT]);
    await stopMining(daemon);
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  it('commits the slots a block kept, not those of a reverted transaction', async () => {
    const hashes = [
      await send(1n, 5n, false),
      await send(2n, 9n, true),
      await send(3n, 7n, false),
      await send(4n, 8n, false),
    ];
    expect(await mine(hashes)).toEqual(['0x1', '0x0', '0x1', '0x1']);
    await expectStorage(
      new Map([
        [1n, 5n],
        [3n, 7n],
        [4n, 8n],
      ]),
      [2n],
    );
  });

  it('commits a slot zeroed, rewritten and reverted within one block', async () => {
    const hashes = [
      await send(4n, 0n, false),
      await send(3n, 11n, false),
      await send(3n, 12n, true),
      await send(5n, 6n, true),
      await send(1n, 0n, false),
      await send(1n, 13n, false),
    ];
    expect(await mine(hashes)).toEqual(['0x1', '0x1', '0x0', '0x0', '0x1', '0x1']);
    await expectStorage(
      new Map([
        [1n, 13n],
        [3n, 11n],
      ]),
      [2n, 4n, 5n],
    );
    for (const [slot, value] of [
      [1n, 13n],
      [2n, 0n],
      [3n, 11n],
      [4n, 0n],
      [5n, 0n],
    ]) {
      expect(
        BigInt(await daemon.rpc.call<string>('eth_getStorageAt', [target, `0x${word(slot)}`])),
      ).toBe(value);
    }
  });
});
