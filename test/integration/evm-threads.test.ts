/**
 * Call threads against the real daemon: `eth_call` and `eth_estimateGas` run on worker threads,
 * so a long call holds up nothing else, and a call right after a block sees that block's state
 * (the threads follow the producer's head). A daemon without call threads answers the same.
 * A call (or simulation) past `--json-rpc.evm-timeout` is aborted, and the daemon goes on
 * answering calls.
 * Threads start on the first call or submitted transaction and stop after `--json-rpc.evm-idle`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Interface } from 'ethers';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { RpcResponseError } from '../../src/client/errors.js';
import { loadContract } from '../helpers/contracts.js';
import { daemonLogRecords } from '../helpers/daemon-log.js';
import { devWallet, sendAndWait, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** JUMPDEST PUSH1 0 JUMP: creation code that loops until its gas is spent. */
const ENDLESS_LOOP = '0x5b600056';
const LONG_CALL_GAS = 50_000_000;
/** Gas for the endless loop that takes the EVM far longer than the time limit to spend. */
const UNENDING_CALL_GAS = 1_000_000_000;
const fixture = loadContract('Fixture');
const abi = new Interface(fixture.abi);

/** Deploys the Fixture contract from dev account 0 and returns its address. */
async function deployFixture(rpc: HttpRpcClient): Promise<string> {
  const raw = await signDynamicFeeTx(devWallet(0), {
    nonce: 0,
    data: fixture.bytecode,
    gasLimit: 1_000_000n,
  });
  return (await sendAndWait(rpc, raw)).contractAddress as string;
}

/** What a daemon answers to calls that return, revert and need gas estimates. */
async function callAnswers(rpc: HttpRpcClient, address: string): Promise<unknown[]> {
  const settle = (promise: Promise<unknown>) =>
    promise.catch((error: unknown) =>
      error instanceof RpcResponseError ? { code: error.code, message: error.message } : error,
    );
  const call = (data: string, block = 'latest') =>
    settle(rpc.call('eth_call', [{ to: address, data }, block]));
  return Promise.all([
    call(abi.encodeFunctionData('get')),
    call(abi.encodeFunctionData('fail')),
    call(abi.encodeFunctionData('failCustom', [7])),
    call(abi.encodeFunctionData('get'), '0x0'),
    settle(
      rpc.call('eth_estimateGas', [{ to: address, data: abi.encodeFunctionData('set', [5]) }]),
    ),
    settle(rpc.call('eth_estimateGas', [{ to: address, data: abi.encodeFunctionData('fail') }])),
  ]);
}

/** A daemon with one call thread, instant blocks and gas cap `gasCap`. */
function startOneThreadDaemon(gasCap: number, ...flags: string[]): Promise<TestDaemon> {
  const threads = ['--json-rpc.evm-threads', '1', '--block-time', '0'];
  return startTestDaemon([...threads, '--json-rpc.gas-cap', String(gasCap), ...flags]);
}

describe('call threads', () => {
  let daemon: TestDaemon;
  let fixtureAddress: string;

  beforeAll(async () => {
    // A time limit well past the long call's run time even on a loaded machine: this block
    // is about calls that end by gas; the time limit has its own daemon below.
    daemon = await startOneThreadDaemon(LONG_CALL_GAS, '--json-rpc.evm-timeout', '60s');
    fixtureAddress = await deployFixture(daemon.rpc);
  });

  afterAll(() => daemon.stop());

  it('keeps answering other requests while a long eth_call runs', async () => {
    const caller = new HttpRpcClient(daemon.endpoints.http, { connections: 1 });
    const reader = new HttpRpcClient(daemon.endpoints.http, { connections: 1 });
    try {
      await Promise.all([caller.call('eth_chainId'), reader.call('eth_chainId')]);
      let running = true;
      const long = caller
        .call('eth_call', [
          { data: ENDLESS_LOOP, gas: `0x${LONG_CALL_GAS.toString(16)}` },
          'latest',
        ])
        .catch((error: Error) => error)
        .finally(() => (running = false));
      let answeredMeanwhile = 0;
      while (running) {
        await reader.call('eth_blockNumber');
        if (running) answeredMeanwhile++;
      }
      expect(String(await long)).toContain('out of gas');
      // Run on the main thread, the call would let through at most what arrived before it.
      expect(answeredMeanwhile).toBeGreaterThan(50);
    } finally {
      await Promise.all([caller.close(), reader.close()]);
    }
  });

  it('runs a call on the state of the block just committed', async () => {
    const wallet = devWallet(1);
    for (let value = 1; value <= 5; value++) {
      const raw = await signDynamicFeeTx(wallet, {
        nonce: value - 1,
        to: fixtureAddress,
        data: abi.encodeFunctionData('set', [value * 11]),
        gasLimit: 100_000n,
      });
      await sendAndWait(daemon.rpc, raw);
      const stored = await daemon.rpc.call<string>('eth_call', [
        { to: fixtureAddress, data: abi.encodeFunctionData('get') },
        'latest',
      ]);
      expect(BigInt(stored)).toBe(BigInt(value * 11));
    }
  });

  it('answers calls and estimates as a daemon without call threads does', async () => {
    const single = await startTestDaemon(['--json-rpc.evm-threads', '0', '--block-time', '0']);
    try {
      const address = await deployFixture(single.rpc);
      const fresh = await startTestDaemon(['--json-rpc.evm-threads', '1', '--block-time', '0']);
      try {
        expect(await deployFixture(fresh.rpc)).toBe(address);
        const [withThreads, without] = await Promise.all([
          callAnswers(fresh.rpc, address),
          callAnswers(single.rpc, address),
        ]);
        expect(withThreads).toEqual(without);
        expect(without[1]).toMatchObject({
          code: 3,
          message: 'execution reverted: Fixture: always fails',
        });
      } finally {
        await fresh.stop();
      }
    } finally {
      await single.stop();
    }
  });
});

describe('the call time limit', () => {
  let daemon: TestDaemon;
  let fixtureAddress: string;

  beforeAll(async () => {
    daemon = await startOneThreadDaemon(UNENDING_CALL_GAS, '--json-rpc.evm-timeout', '500ms');
    fixtureAddress = await deployFixture(daemon.rpc);
  });

  afterAll(() => daemon.stop());

  const unending = { data: ENDLESS_LOOP, gas: `0x${UNENDING_CALL_GAS.toString(16)}` };
  const limitError = {
    code: -32005,
    message:
      'execution aborted (timeout = 500ms): the call ran longer than --json-rpc.evm-timeout allows',
  };

  it('aborts an eth_call that runs past --json-rpc.evm-timeout and answers the next one', async () => {
    const aborted = await daemon.rpc.call('eth_call', [unending, 'latest']).catch((e) => e);
    expect(aborted).toBeInstanceOf(RpcResponseError);
    expect(aborted).toMatchObject(limitError);
    const stored = await daemon.rpc.call<string>('eth_call', [
      { to: fixtureAddress, data: abi.encodeFunctionData('get') },
      'latest',
    ]);
    expect(BigInt(stored)).toBe(0n);
  });

  it('aborts an eth_estimateGas the same way, and a call queued behind it still runs', async () => {
    const [aborted, behind] = await Promise.all([
      daemon.rpc.call('eth_estimateGas', [unending]).catch((e) => e),
      daemon.rpc.call<string>('eth_estimateGas', [
        { to: fixtureAddress, data: abi.encodeFunctionData('set', [3]) },
      ]),
    ]);
    expect(aborted).toMatchObject(limitError);
    expect(BigInt(behind)).toBeGreaterThan(21_000n);
  });

  it('aborts an eth_simulateV1 the same way: a simulation runs on a call thread', async () => {
    const gasLimit = `0x${UNENDING_CALL_GAS.toString(16)}`;
    const simulation = { blockStateCalls: [{ blockOverrides: { gasLimit }, calls: [unending] }] };
    const aborted = await daemon.rpc.call('eth_simulateV1', [simulation]).catch((e) => e);
    expect(aborted).toMatchObject(limitError);
  });
});

describe('call threads on demand', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startOneThreadDaemon(LONG_CALL_GAS, '--json-rpc.evm-idle', '300ms');
  });

  afterAll(() => daemon.stop());

  /** How often the daemon logged `message` so far. */
  const logged = (message: string) =>
    daemonLogRecords(daemon.dataDir).filter((record) => record.msg === message).length;

  it('starts the thread for a transaction or a call, and stops it once idle', async () => {
    expect(logged('call thread ready')).toBe(0);
    // Sender recovery runs on the call thread, so a submitted transaction starts it.
    const address = await deployFixture(daemon.rpc);
    await waitFor(() => logged('call thread ready') === 1, 10_000, 'the call thread to start');
    await waitFor(
      () => logged('call thread stopped after idling') === 1,
      10_000,
      'the idle call thread to stop',
    );
    // The next call starts it again and is answered there, as a daemon with threads running.
    const stored = await daemon.rpc.call<string>('eth_call', [
      { to: address, data: abi.encodeFunctionData('get') },
      'latest',
    ]);
    expect(BigInt(stored)).toBe(0n);
    await waitFor(() => logged('call thread ready') === 2, 10_000, 'the thread to start again');
  });
});
