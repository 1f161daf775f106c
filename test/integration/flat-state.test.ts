/**
 * The flat state tables (docs/chain.md, "Flat state") against the state trie, on a real daemon:
 * randomized blocks of value transfers (to new accounts too), storage writes and deletes,
 * contract creations, contracts that self-destruct in their constructor (EIP-6780: the account
 * goes) and creations that revert after writing storage, plus the development setters. After each round:
 * - `daemon check` compares the head's flat tables with its trie entry by entry;
 * - every account and slot touched so far is read at the head (answered from the flat tables)
 *   and proven with `eth_getProof` against the head's stateRoot;
 * - what was read at every earlier head is read again at that block (now from the trie) and
 *   must not have changed.
 * Then the same after a restart, after `kill -9` mid-production, after `evm_revert`, and for a
 * store whose flat tables do not describe its head (built again at start).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Wallet } from 'ethers';
import {
  encodeRlp,
  getBytes,
  getCreateAddress,
  keccak256,
  toBeArray,
  toBeHex,
  zeroPadValue,
} from 'ethers';
import type { CheckReport } from '../../src/shared/check-report.js';
import { ChainStore } from '../../src/daemon/chain/store.js';
import { runCli, runCliJsonWithCode } from '../helpers/cli.js';
import { daemonLogRecords } from '../helpers/daemon-log.js';
import { devWallet, signDynamicFeeTx, stopMining, waitForReceipt } from '../helpers/dev-chain.js';
import {
  EMPTY_TRIE_ROOT,
  verifyAccountProof,
  verifyStorageProof,
} from '../helpers/merkle-proof.js';
import { isAlive, waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Seed of the random blocks (printed when a check fails, to replay the same chain). */
const SEED = Number(process.env.FLAT_STATE_SEED ?? Date.now() % 2 ** 31);
const ROUNDS = 5;
const SLOTS_PER_CONTRACT = 8;
const SENDERS = [1, 2, 3, 4, 5].map(devWallet);
const CONTRACT_GAS = 200_000n;

/** Stores calldata word 1 at slot calldata word 0 (a zero deletes the slot). */
const POKER_RUNTIME = '6020356000355500';
/** Writes 7 at slot 3, then returns {@link POKER_RUNTIME}. */
const POKER_INITCODE = `0x6007600355${'6008601160003960086000f3'}${POKER_RUNTIME}`;
/** Writes 1 at slot 5 and self-destructs to its creator, in the constructor. */
const SELF_DESTRUCT_INITCODE = '0x600160055533ff';
/** Writes 1 at slot 5, then reverts: a creation that fails after clearing the new storage. */
const REVERTING_INITCODE = '0x600160055560006000fd';

/** Deterministic random numbers (mulberry32), so a failing seed can be replayed. */
function randomSource(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * below);
  };
}

/** What one address held at one block, as the node answered. */
interface AccountReads {
  balance: string;
  nonce: string;
  code: string;
  slots: Record<string, string>;
}

interface BlockReads {
  number: string;
  accounts: Record<string, AccountReads>;
}

interface Proof {
  balance: string;
  nonce: string;
  codeHash: string;
  storageHash: string;
  accountProof: string[];
  storageProof: Array<{ key: string; value: string; proof: string[] }>;
}

const word = (slot: number): string => zeroPadValue(toBeHex(slot), 32);

describe('flat state tables', () => {
  const random = randomSource(SEED);
  const dataDir = makeDataDir();
  let daemon: TestDaemon;
  /** Addresses touched so far, with the slots written at each. */
  const touched = new Map<string, Set<number>>();
  const pokers: string[] = [];
  const nonces = new Map<string, number>();
  let readsAtHeads: BlockReads[] = [];

  const touch = (address: string, slot?: number) => {
    const key = address.toLowerCase();
    if (!touched.has(key)) touched.set(key, new Set());
    if (slot !== undefined) touched.get(key)!.add(slot);
  };
  const nextNonce = (wallet: Wallet) => {
    const nonce = nonces.get(wallet.address) ?? 0;
    nonces.set(wallet.address, nonce + 1);
    return nonce;
  };

  const start = async () => {
    daemon = await startTestDaemon([], dataDir);
    await stopMining(daemon);
    for (const sender of SENDERS) {
      const count = await daemon.rpc.call<string>('eth_getTransactionCount', [
        sender.address,
        'pending',
      ]);
      nonces.set(sender.address, Number(count));
    }
  };
  /** Stops the daemon, keeping its data directory. */
  const stop = async () => {
    await Promise.all([daemon.rpc.close(), daemon.authedRpc.close()]);
    await runCli(['daemon', 'stop', '--datadir', dataDir]);
  };
  const headNumber = async () => Number(await daemon.rpc.call<string>('eth_blockNumber'));

  /** An address no account has yet (from the seed, so a run can be replayed). */
  const freshAddress = () => `0x5eed${toBeHex(random(2 ** 30), 18).slice(2)}`;

  /**
   * One random transaction, signed, and whether it is to succeed; its effects recorded in
   * `touched` (and `pokers`).
   */
  const randomTransaction = async (): Promise<{ raw: string; succeeds: boolean }> => {
    const sender = SENDERS[random(SENDERS.length)];
    const nonce = nextNonce(sender);
    touch(sender.address);
    const kind = pokers.length === 0 ? 3 : random(11);
    if (kind < 3) {
      const to = random(3) === 0 ? freshAddress() : devWallet(random(10)).address;
      touch(to);
      const raw = await signDynamicFeeTx(sender, { nonce, to, value: BigInt(1 + random(1000)) });
      return { raw, succeeds: true };
    }
    if (kind < 4 || kind >= 9) {
      const created = getCreateAddress({ from: sender.address, nonce });
      const initcode = [POKER_INITCODE, SELF_DESTRUCT_INITCODE, REVERTING_INITCODE][
        Math.max(0, kind - 8)
      ];
      if (initcode === POKER_INITCODE) pokers.push(created);
      touch(created, initcode === POKER_INITCODE ? 3 : 5);
      const raw = await signDynamicFeeTx(sender, {
        nonce,
        data: initcode,
        value: BigInt(random(3)),
        gasLimit: CONTRACT_GAS,
      });
      return { raw, succeeds: initcode !== REVERTING_INITCODE };
    }
    const poker = pokers[random(pokers.length)];
    const slot = random(SLOTS_PER_CONTRACT);
    // A third of the writes delete the slot.
    const value = random(3) === 0 ? 0 : 1 + random(2 ** 30);
    touch(poker, slot);
    const raw = await signDynamicFeeTx(sender, {
      nonce,
      to: poker,
      data: `${word(slot)}${word(value).slice(2)}`,
      value: BigInt(random(2)),
      gasLimit: CONTRACT_GAS,
    });
    return { raw, succeeds: true };
  };

  /** A development setter: a block of its own that changes a balance or a slot. */
  const randomSetter = async (): Promise<void> => {
    if (pokers.length > 0 && random(2) === 0) {
      const poker = pokers[random(pokers.length)];
      const slot = random(SLOTS_PER_CONTRACT);
      touch(poker, slot);
      const value = random(2) === 0 ? 0 : random(2 ** 30);
      await daemon.authedRpc.call('hardhat_setStorageAt', [poker, word(slot), word(value)]);
    } else {
      const address = freshAddress();
      touch(address);
      await daemon.authedRpc.call('hardhat_setBalance', [address, toBeHex(1 + random(10 ** 6))]);
    }
  };

  /** A block of random transactions, mined, every one of them included as it was meant to. */
  const randomBlock = async (): Promise<void> => {
    const txs = [];
    for (let count = 1 + random(12); count > 0; count--) txs.push(await randomTransaction());
    const sent = [];
    for (const { raw, succeeds } of txs) {
      const hash = await daemon.rpc.call<string>('eth_sendRawTransaction', [raw]);
      sent.push({ hash, status: succeeds ? '0x1' : '0x0' });
    }
    await daemon.authedRpc.call('evm_mine');
    for (const { hash, status } of sent) {
      expect({ hash, status: (await waitForReceipt(daemon.rpc, hash)).status }).toEqual({
        hash,
        status,
      });
    }
  };

  /** `daemon check`: the head's flat tables equal its trie. */
  const check = () => runCliJsonWithCode<CheckReport>(['daemon', 'check', '--datadir', dataDir]);
  const expectFlatEqualsTrie = async () => {
    const { code, value } = await check();
    expect({ seed: SEED, problems: value.problems }).toEqual({ seed: SEED, problems: [] });
    expect(code).toBe(0);
    expect(value.flatState).toBeDefined();
    return value.flatState!;
  };

  /** The accounts and slots of `reads`, to read again. */
  const wanted = (reads: BlockReads): Map<string, Iterable<number>> =>
    new Map(
      Object.entries(reads.accounts).map(([address, read]) => [
        address,
        Object.keys(read.slots).map(Number),
      ]),
    );

  /** The accounts and slots of `which` (everything touched so far by default), read at `block`. */
  const readAt = async (
    block: string,
    which: ReadonlyMap<string, Iterable<number>> = touched,
  ): Promise<Record<string, AccountReads>> => {
    const accounts: Record<string, AccountReads> = {};
    for (const [address, slots] of which) {
      const read: AccountReads = {
        balance: await daemon.rpc.call<string>('eth_getBalance', [address, block]),
        nonce: await daemon.rpc.call<string>('eth_getTransactionCount', [address, block]),
        code: await daemon.rpc.call<string>('eth_getCode', [address, block]),
        slots: {},
      };
      for (const slot of slots) {
        read.slots[slot] = await daemon.rpc.call<string>('eth_getStorageAt', [
          address,
          word(slot),
          block,
        ]);
      }
      accounts[address] = read;
    }
    return accounts;
  };

  /**
   * Reads everything touched at the head, proves each account and slot against the head's
   * stateRoot, and keeps the reads for the archive comparison.
   */
  const readAndProveHead = async (): Promise<BlockReads> => {
    const head = await daemon.rpc.call<{ number: string; stateRoot: string }>(
      'eth_getBlockByNumber',
      ['latest', false],
    );
    const accounts = await readAt(head.number);
    for (const [address, read] of Object.entries(accounts)) {
      const slots = Object.keys(read.slots).map(Number);
      const proof = await daemon.rpc.call<Proof>('eth_getProof', [
        address,
        slots.map(word),
        head.number,
      ]);
      const proven = verifyAccountProof(head.stateRoot, address, proof.accountProof);
      const context = { seed: SEED, block: head.number, address };
      expect({ ...context, balance: BigInt(read.balance), nonce: BigInt(read.nonce) }).toEqual({
        ...context,
        balance: proven?.balance ?? 0n,
        nonce: proven?.nonce ?? 0n,
      });
      if (read.code !== '0x') expect(proven?.codeHash).toBe(keccak256(read.code));
      // The slots are proven against the storage root the account proof proved.
      const storageRoot = proven?.storageRoot ?? EMPTY_TRIE_ROOT;
      slots.forEach((slot, index) => {
        const value =
          storageRoot === EMPTY_TRIE_ROOT
            ? 0n
            : verifyStorageProof(storageRoot, BigInt(slot), proof.storageProof[index].proof);
        expect({ ...context, slot, value: BigInt(read.slots[slot]) }).toEqual({
          ...context,
          slot,
          value,
        });
      });
    }
    const reads = { number: head.number, accounts };
    readsAtHeads.push(reads);
    return reads;
  };

  /** Every head read so far, read again at its block: the trie answers the same. */
  const expectArchiveUnchanged = async () => {
    for (const earlier of readsAtHeads) {
      const now = await readAt(earlier.number, wanted(earlier));
      for (const [address, read] of Object.entries(earlier.accounts)) {
        expect({ seed: SEED, block: earlier.number, address, read: now[address] }).toEqual({
          seed: SEED,
          block: earlier.number,
          address,
          read,
        });
      }
    }
  };

  const randomRound = async () => {
    for (let blocks = 1 + random(3); blocks > 0; blocks--) await randomBlock();
    if (random(3) === 0) await randomSetter();
    await expectFlatEqualsTrie();
    await readAndProveHead();
  };

  beforeAll(start);
  afterAll(async () => {
    if (isAlive(daemon.pid)) await daemon.stop();
    else rmSync(dataDir, { recursive: true, force: true });
  });

  it('equal the trie after randomized blocks, and reads at older blocks are unchanged', async () => {
    for (let round = 0; round < ROUNDS; round++) await randomRound();
    const counted = await expectFlatEqualsTrie();
    expect(counted.slots).toBeGreaterThan(0);
    await expectArchiveUnchanged();
  });

  it('equal the trie after a restart', async () => {
    await stop();
    await start();
    await expectFlatEqualsTrie();
    await readAndProveHead();
    const last = readsAtHeads.at(-2)!;
    expect(await readAt('latest', wanted(last))).toEqual(last.accounts);
    await randomRound();
    await expectArchiveUnchanged();
  });

  it('equal the trie after kill -9 during block production', async () => {
    await daemon.authedRpc.call('evm_setIntervalMining', [50]);
    const first = await headNumber();
    let killed = false;
    const sending = (async () => {
      while (!killed) {
        const { raw } = await randomTransaction();
        await daemon.rpc.call('eth_sendRawTransaction', [raw]).catch((error: unknown) => {
          if (!killed) throw error;
        });
      }
    })();
    await waitFor(async () => (await headNumber()) >= first + 4, 30_000, 'blocks to be produced');
    // Checked while blocks are being committed: the check reads the head and the tables in one
    // snapshot.
    await expectFlatEqualsTrie();
    await waitFor(async () => (await headNumber()) >= first + 8, 30_000, 'blocks before the kill');
    killed = true;
    process.kill(daemon.pid, 'SIGKILL');
    await waitFor(() => !isAlive(daemon.pid), 10_000, 'the killed daemon to exit');
    await sending;
    await Promise.all([daemon.rpc.close(), daemon.authedRpc.close()]);

    await start();
    expect(await headNumber()).toBeGreaterThanOrEqual(first + 8);
    await expectFlatEqualsTrie();
    await readAndProveHead();
    await randomRound();
    await expectArchiveUnchanged();
  });

  it('equal the trie after evm_revert takes blocks off', async () => {
    const snapshot = await daemon.authedRpc.call<string>('evm_snapshot');
    const before = await readAndProveHead();
    await randomRound();
    await randomRound();
    expect(await daemon.authedRpc.call('evm_revert', [snapshot])).toBe(true);
    expect(await headNumber()).toBe(Number(before.number));
    readsAtHeads = readsAtHeads.filter((reads) => BigInt(reads.number) <= BigInt(before.number));
    await expectFlatEqualsTrie();
    await readAndProveHead();
    expect(await readAt('latest', wanted(before))).toEqual(before.accounts);
    for (const sender of SENDERS) {
      const count = await daemon.rpc.call<string>('eth_getTransactionCount', [
        sender.address,
        'pending',
      ]);
      nonces.set(sender.address, Number(count));
    }
    await randomRound();
    await expectArchiveUnchanged();
  });

  it('are built from the trie at start when they do not describe the head', async () => {
    await stop();
    const store = ChainStore.open(dataDir);
    await store.writeFlatState({
      stateRoot: new Uint8Array(32),
      replace: true,
      clearedStorage: [],
      accounts: [],
      slots: [],
    });
    await store.close();
    const stale = await check();
    expect(stale.code).toBe(1);
    expect(stale.value.problems.map((p) => p.problem)).toEqual([
      `flat state: the flat tables describe state root 0x${'00'.repeat(32)}`,
    ]);

    await start();
    const built = daemonLogRecords(dataDir).filter(
      (record) => record.msg === 'flat state tables built from the head state trie',
    );
    expect(built).toHaveLength(1);
    await expectFlatEqualsTrie();
    await readAndProveHead();
    await expectArchiveUnchanged();
  });

  it('answer reads and calls at the head, and daemon check finds an entry that differs', async () => {
    const address = SENDERS[0].address;
    const head = await daemon.rpc.call<{ number: string; stateRoot: string }>(
      'eth_getBlockByNumber',
      ['latest', false],
    );
    const proof = await daemon.rpc.call<Proof>('eth_getProof', [address, [], head.number]);
    await stop();
    // An account entry the trie does not hold, under the head's tag: what reads at the head
    // answer shows where they come from.
    const planted = BigInt(proof.balance) + 12_345n;
    const store = ChainStore.open(dataDir);
    await store.writeFlatState({
      stateRoot: getBytes(head.stateRoot),
      replace: false,
      clearedStorage: [],
      accounts: [
        [
          getBytes(keccak256(address)),
          getBytes(
            encodeRlp([
              toBeArray(BigInt(proof.nonce)),
              toBeArray(planted),
              proof.storageHash,
              proof.codeHash,
            ]),
          ),
        ],
      ],
      slots: [],
    });
    await store.close();
    const found = await check();
    expect(found.code).toBe(1);
    expect(found.value.problems.map((p) => p.problem)).toEqual([
      `flat state: account ${keccak256(address)} differs from the trie`,
    ]);

    await start();
    expect(BigInt(await daemon.rpc.call<string>('eth_getBalance', [address, 'latest']))).toBe(
      planted,
    );
    // A call's BALANCE opcode: PUSH20 address, BALANCE, return it as one word.
    const balanceCode = `0x73${address.slice(2)}3160005260206000f3`;
    const called = await daemon.rpc.call<string>('eth_call', [{ data: balanceCode }, 'latest']);
    expect(BigInt(called)).toBe(planted);
  });
});
