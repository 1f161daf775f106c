/**
 * What the daemon's edits to EthereumJS's EVM (scripts/ethereumjs-patches.js, docs/evm-patches.md)
 * must not change, against a real daemon: the jump-destination analysis kept per code still
 * refuses a JUMP into PUSH data, code replaced by a dev setter is analysed afresh (in calls and
 * in block execution), memory that starts small grows and reads as before, stack words of any
 * length become the same bytes in memory and as storage keys, the step events a trace sees
 * carry all the memory that was paid for, and a slot warmed by an access list is warm in its
 * transaction only.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { devWallet, sendAndWait, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** PUSH1 4, JUMP, STOP, JUMPDEST at 4, then returns the word 42. */
const VALID_JUMP = '0x600456005b602a60005260206000f3';
/** The same length and the same byte 0x5b at 4, but inside PUSH1's data: the JUMP must fail. */
const JUMP_INTO_PUSH_DATA = '0x60045660' + '5b602a60005260206000f3';

/**
 * Stores 42 at 0x500 (memory's first growth), loads the word at 0x2000 (a further growth), then
 * returns that word, MSIZE and the word at 0x500.
 */
const MEMORY_PROBE = '0x602a61050052612000516000525960205261050051604052' + '60606000f3';

/**
 * CALLs the identity precompile with no input and 32 bytes of output space at 0x1000: memory is
 * paid for up to 0x1020, but nothing is written there.
 */
const UNWRITTEN_OUTPUT = '0x602061100060006000600060045af15000';

/**
 * Takes the word x of its input, stores x at storage key x, loads that key back and returns x
 * then the loaded word: each of MSTORE, SSTORE and SLOAD turns the stack word into bytes.
 */
const WORD_ROUND_TRIP = '0x600035808055805460205260005260406000f3';

/** Loads storage slot 7 and stops: a cold SLOAD costs 2 100 gas, a warm one 100. */
const LOAD_SLOT_7 = '0x6007545000';

const WORD_42 = `0x${'00'.repeat(31)}2a`;
const word = (value: number | bigint) => value.toString(16).padStart(64, '0');

describe('EthereumJS EVM edits', () => {
  let daemon: TestDaemon;
  const target = `0x${'cd'.repeat(19)}01`;
  let nonce = 0;

  /** Calls `target` with a one-byte input that differs per call, so no kept outcome answers. */
  let input = 0;
  const call = () =>
    daemon.rpc.call<string>('eth_call', [
      { to: target, data: `0x${(input++ % 256).toString(16).padStart(2, '0')}` },
      'latest',
    ]);
  const setCode = (code: string) => daemon.authedRpc.call('hardhat_setCode', [target, code]);
  /** Sends a transaction to `target` and returns its receipt's status. */
  const transact = async () => {
    const raw = await signDynamicFeeTx(devWallet(1), {
      to: target,
      nonce: nonce++,
      gasLimit: 100_000n,
    });
    return (await sendAndWait(daemon.rpc, raw)).status;
  };

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  it('refuses a JUMP into PUSH data on every run of the same code', async () => {
    await setCode(JUMP_INTO_PUSH_DATA);
    for (let run = 0; run < 3; run++) {
      expect((await rpcError(call())).message).toBe('invalid jump destination');
    }
  });

  it('analyses code replaced by a dev setter afresh, in calls and in blocks', async () => {
    await setCode(VALID_JUMP);
    expect(await call()).toBe(WORD_42);
    expect(await call()).toBe(WORD_42);
    expect(await transact()).toBe('0x1');

    await setCode(JUMP_INTO_PUSH_DATA);
    expect((await rpcError(call())).message).toBe('invalid jump destination');
    expect(await transact()).toBe('0x0');

    await setCode(VALID_JUMP);
    expect(await call()).toBe(WORD_42);
    expect(await transact()).toBe('0x1');
  });

  it('grows memory from empty and reads unwritten memory as zero', async () => {
    await setCode(MEMORY_PROBE);
    expect(await call()).toBe(`0x${word(0)}${word(0x2020)}${word(42)}`);
  });

  it('turns stack words of every length into the same bytes, in calls and in blocks', async () => {
    await setCode(WORD_ROUND_TRIP);
    const words = [0n, 1n, 0xfn, 0xffn, 0x100n, 0xabcden, 2n ** 64n - 1n, 2n ** 200n + 7n];
    words.push(2n ** 255n, 2n ** 256n - 1n);
    for (const value of words) {
      const data = `0x${word(value)}`;
      expect(await daemon.rpc.call('eth_call', [{ to: target, data }, 'latest'])).toBe(
        `0x${word(value)}${word(value)}`,
      );
    }
    const raw = await signDynamicFeeTx(devWallet(1), {
      to: target,
      nonce: nonce++,
      gasLimit: 100_000n,
      data: `0x${word(0xabcden)}`,
    });
    expect((await sendAndWait(daemon.rpc, raw)).status).toBe('0x1');
    // The key the block wrote under is the word left-padded to 32 bytes, as the trie keys it.
    expect(await daemon.rpc.call('eth_getStorageAt', [target, '0xabcde', 'latest'])).toBe(
      `0x${word(0xabcden)}`,
    );
  });

  it('warms a slot of an access list in its own transaction only', async () => {
    await setCode(LOAD_SLOT_7);
    const gasUsed = async (accessList?: { address: string; storageKeys: string[] }[]) => {
      const raw = await signDynamicFeeTx(devWallet(1), {
        to: target,
        nonce: nonce++,
        gasLimit: 100_000n,
        accessList,
      });
      return BigInt((await sendAndWait(daemon.rpc, raw)).gasUsed as string);
    };
    // 21 000 + PUSH1 3 + cold SLOAD 2 100 + POP 2.
    const cold = 23_105n;
    expect(await gasUsed()).toBe(cold);
    // The list costs 2 400 for the address and 1 900 for the slot, and the SLOAD is warm.
    const listed = [{ address: target, storageKeys: [`0x${word(7)}`] }];
    expect(await gasUsed(listed)).toBe(cold + 2_400n + 1_900n - 2_000n);
    // The target is warm from the start of every transaction; its slot 7 is not.
    expect(await gasUsed()).toBe(cold);
  });

  it('shows a step all the memory paid for, written or not', async () => {
    await setCode(UNWRITTEN_OUTPUT);
    const trace = await daemon.authedRpc.call<{
      structLogs: { op: string; memory?: string[] }[];
    }>('debug_traceCall', [{ to: target }, 'latest', { enableMemory: true }]);
    const pop = trace.structLogs.find((step) => step.op === 'POP');
    expect(pop?.memory).toHaveLength(0x1020 / 32);
    expect(pop?.memory?.every((memoryWord) => memoryWord === word(0))).toBe(true);
  });
});
