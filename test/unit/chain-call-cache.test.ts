import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { bytesToBigInt, hexToBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { ExecutionRevertedError } from '../../src/shared/errors.js';
import {
  REGISTER_RUNTIME,
  deployCode,
  devAddress,
  pooled,
  signTx,
  storeContractRuntime,
  tempDataDir,
  word,
} from './chain-fixtures.js';

/** Init code that stores 42 in slot 0 of the new contract, reads it back and returns it. */
const STORE_AND_LOAD = hexToBytes('0x602a60005560005460005260206000f3');
/** Init code that reads the balance of `target` (one account access) and stops. */
const balanceRead = (target: Address): Uint8Array =>
  hexToBytes(`0x73${target.toString().slice(2)}315000`);
/** Init code of a creation call that returns the balance of its CALLER as one word. */
const CALLER_BALANCE_PROBE = hexToBytes('0x333160005260206000f3');
/** Init code of a creation call that returns NUMBER (the block the call runs in) as one word. */
const BLOCK_NUMBER_PROBE = hexToBytes('0x4360005260206000f3');

describe('eth_call caches', () => {
  let chain: Chain;
  let tmp: ReturnType<typeof tempDataDir>;
  let nonce: bigint;

  beforeEach(async () => {
    tmp = tempDataDir();
    chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis() });
    nonce = 0n;
  });
  afterEach(async () => {
    await chain.close();
    tmp.cleanup();
  });

  async function commit(fields: { to?: Address; data: Uint8Array }): Promise<Address | undefined> {
    const tx = signTx(chain.common, 0, { nonce: nonce++, gasLimit: 200_000n, ...fields });
    const committed = await chain.buildAndCommitBlock([pooled(tx)], chain.head().number + 1n);
    expect(committed.receipts[0].status).toBe(1);
    return committed.receipts[0].contractAddress;
  }

  /** Slot 0 of `register` read by a call at `block`; `gas` makes the request distinct. */
  async function readRegister(register: Address, block: bigint, gas?: bigint): Promise<bigint> {
    return bytesToBigInt((await chain.call({ to: register, gas }, block)).returnData);
  }

  it('answers from the state of the selected block, before and after a block changes it', async () => {
    const register = (await commit({ data: deployCode(REGISTER_RUNTIME) }))!;
    await commit({ to: register, data: word(7n) });
    const sevenAt = chain.head().number;
    expect(await readRegister(register, sevenAt)).toBe(7n);
    expect(await readRegister(register, sevenAt)).toBe(7n);

    await commit({ to: register, data: word(9n) });
    const nineAt = chain.head().number;
    // The same request, and distinct ones that must execute again on the cached state.
    expect(await readRegister(register, nineAt)).toBe(9n);
    expect(await readRegister(register, nineAt, 100_000n)).toBe(9n);
    expect(await readRegister(register, sevenAt)).toBe(7n);
    expect(await readRegister(register, sevenAt, 100_001n)).toBe(7n);
    expect(await readRegister(register, sevenAt - 1n)).toBe(0n);
  });

  it('lets go of the VMs of states it no longer keeps', async () => {
    const register = (await commit({ data: deployCode(REGISTER_RUNTIME) }))!;
    const listeners = () => chain.common.events.listenerCount('hardforkChanged');
    await readRegister(register, chain.head().number);
    const before = listeners();
    // Each block a new state root, each call on it a new VM in the cache.
    for (let value = 1n; value <= 12n; value++) {
      await commit({ to: register, data: word(value) });
      expect(await readRegister(register, chain.head().number)).toBe(value);
    }
    expect(listeners()).toBe(before);
  });

  it('keeps what a call wrote out of the state later calls read', async () => {
    const register = (await commit({ data: deployCode(REGISTER_RUNTIME) }))!;
    await commit({ to: register, data: word(7n) });
    const head = chain.head().number;
    expect(await readRegister(register, head)).toBe(7n);

    await chain.call({ to: register, data: word(5n) }, head);
    expect(await readRegister(register, head)).toBe(7n);
    expect(await readRegister(register, head, 100_000n)).toBe(7n);
  });

  it('lets a call read back what it wrote itself', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await chain.call(
        { data: STORE_AND_LOAD, gas: 100_000n + BigInt(attempt) },
        0n,
      );
      expect(bytesToBigInt(result.returnData)).toBe(42n);
    }
  });

  it("sees the caller's balance less the value of each call, call after call", async () => {
    const sender = devAddress(2);
    const balance = await chain.getBalance(sender, 0n);
    // Distinct gas limits, so each call executes instead of being answered from a kept outcome.
    const seen = async (value: bigint, gas: bigint) =>
      bytesToBigInt(
        (await chain.call({ from: sender, value, data: CALLER_BALANCE_PROBE, gas }, 0n)).returnData,
      );
    expect(await seen(5n, 100_000n)).toBe(balance - 5n);
    expect(await seen(0n, 100_001n)).toBe(balance);
    expect(await seen(7n, 100_002n)).toBe(balance - 7n);
    expect(await seen(0n, 100_003n)).toBe(balance);
    // The same call with and without a caller: the zero address has no balance to show.
    expect(bytesToBigInt((await chain.call({ data: CALLER_BALANCE_PROBE }, 0n)).returnData)).toBe(
      0n,
    );
    expect(
      bytesToBigInt(
        (await chain.call({ from: sender, data: CALLER_BALANCE_PROBE }, 0n)).returnData,
      ),
    ).toBe(balance);
  });

  it('starts every call with the access list of a fresh transaction', async () => {
    // Distinct gas limits, so each call executes instead of being answered from a kept outcome.
    const gasOf = async (from: Address | undefined, target: Address, gas: bigint) =>
      (await chain.call({ from, data: balanceRead(target), gas }, 0n)).gasUsed;
    const cold = await gasOf(undefined, devAddress(1), 100_000n);
    expect(await gasOf(undefined, devAddress(1), 100_001n)).toBe(cold);
    expect(await gasOf(undefined, devAddress(1), 100_002n)).toBe(cold);
    // The origin is warm from the start (EIP-2929): 2 500 gas less than a cold account.
    expect(await gasOf(devAddress(1), devAddress(1), 100_003n)).toBe(cold - 2_500n);
    expect(await gasOf(undefined, devAddress(1), 100_004n)).toBe(cold);
  });

  it('runs each block in its own context even when blocks share a state root', async () => {
    await chain.buildAndCommitBlock([], 1n);
    await chain.buildAndCommitBlock([], 2n);
    expect(chain.getBlockByNumber(1n)!.block.header.stateRoot).toEqual(
      chain.getBlockByNumber(2n)!.block.header.stateRoot,
    );
    const numberAt = async (block: bigint) =>
      bytesToBigInt((await chain.call({ data: BLOCK_NUMBER_PROBE }, block)).returnData);
    expect(await numberAt(1n)).toBe(1n);
    expect(await numberAt(2n)).toBe(2n);
    expect(await numberAt(1n)).toBe(1n);
  });

  it('reverts with the same error every time the same call is made', async () => {
    const store = (await commit({ data: deployCode(storeContractRuntime()) }))!;
    const head = chain.head().number;
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await chain.call({ to: store }, head).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExecutionRevertedError);
      expect((error as ExecutionRevertedError).message).toBe('execution reverted: nope');
      expect((error as ExecutionRevertedError).data).toMatch(/^0x08c379a0/);
    }
  });
});
