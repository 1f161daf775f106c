/**
 * Development snapshots and reverts on the persistent chain, across restarts and `kill -9`: a
 * snapshot survives both, a revert is durable once answered, and the store it leaves passes the
 * store checks (`daemon check --full`: blocks, receipts, indexes, state roots, log index).
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Interface } from 'ethers';
import { runCli, runCliJson } from '../helpers/cli.js';
import { loadContract } from '../helpers/contracts.js';
import { devWallet, type RawReceipt } from '../helpers/dev-chain.js';
import { isAlive, waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const FLAGS = ['--block-time', '0'];
const FIXTURE = loadContract('Fixture');
const FIXTURE_ABI = new Interface(FIXTURE.abi);
const SENDER = devWallet(4).address;

interface RawBlock {
  number: string;
  hash: string;
  stateRoot: string;
}

interface CheckReport {
  problems: string[];
  head: number;
  logIndexHeight: number;
}

async function mined(daemon: TestDaemon, hash: string): Promise<RawReceipt> {
  let found: RawReceipt | null = null;
  await waitFor(
    async () =>
      (found = await daemon.rpc.call<RawReceipt | null>('eth_getTransactionReceipt', [hash])) !==
      null,
    20_000,
    `receipt of ${hash}`,
  );
  return found!;
}

function send(daemon: TestDaemon, fields: Record<string, string>): Promise<string> {
  return daemon.rpc.call<string>('eth_sendTransaction', [
    { from: SENDER, gas: '0x2dc6c0', ...fields },
  ]);
}

/** Deploys the Fixture contract; resolves with its address. */
async function deployFixture(daemon: TestDaemon): Promise<string> {
  const receipt = await mined(daemon, await send(daemon, { data: FIXTURE.bytecode }));
  return receipt.contractAddress as string;
}

/** Mines `count` blocks of transactions that log; resolves with their hashes. */
async function loggingBlocks(
  daemon: TestDaemon,
  fixture: string,
  count: number,
): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < count; i++) {
    const hash = await send(daemon, {
      to: fixture,
      data: FIXTURE_ABI.encodeFunctionData('emitMany', [3]),
    });
    await mined(daemon, hash);
    hashes.push(hash);
  }
  return hashes;
}

const head = (daemon: TestDaemon) =>
  daemon.rpc.call<RawBlock>('eth_getBlockByNumber', ['latest', false]);

const logsOf = (daemon: TestDaemon, address: string) =>
  daemon.rpc.call<Array<{ transactionHash: string }>>('eth_getLogs', [
    { fromBlock: '0x0', toBlock: 'latest', address },
  ]);

describe('snapshots and reverts across restarts and kill -9', () => {
  let dataDir = '';
  let daemon: TestDaemon | undefined;
  beforeEach(() => {
    dataDir = makeDataDir();
  });

  const start = async () => (daemon = await startTestDaemon(FLAGS, dataDir));
  const stop = async () => {
    const running = daemon!;
    daemon = undefined;
    await Promise.all([running.rpc.close(), running.authedRpc.close()]);
    await runCli(['daemon', 'stop', '--datadir', dataDir]);
  };
  const kill = async () => {
    const running = daemon!;
    daemon = undefined;
    process.kill(running.pid, 'SIGKILL');
    await waitFor(() => !isAlive(running.pid), 10_000, 'the killed daemon to exit');
    await Promise.all([running.rpc.close(), running.authedRpc.close()]);
  };
  const check = () => runCliJson<CheckReport>(['daemon', 'check', '--full', '--datadir', dataDir]);

  afterEach(async () => {
    if (daemon !== undefined && isAlive(daemon.pid)) await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a snapshot through a restart and reverts to it afterwards', async () => {
    let node = await start();
    const fixture = await deployFixture(node);
    const id = await node.rpc.call<string>('evm_snapshot');
    const snapshotHead = await head(node);
    const rewound = await loggingBlocks(node, fixture, 3);
    await stop();

    node = await start();
    expect(await node.rpc.call('evm_revert', [id])).toBe(true);
    expect(await head(node)).toEqual(snapshotHead);
    expect(await logsOf(node, fixture)).toEqual([]);
    for (const hash of rewound) {
      expect(await node.rpc.call('eth_getTransactionReceipt', [hash])).toBeNull();
    }
    await stop();
    expect(await check()).toEqual(
      expect.objectContaining({ problems: [], head: Number(snapshotHead.number) }),
    );

    node = await start();
    expect(await head(node)).toEqual(snapshotHead);
    const [after] = await loggingBlocks(node, fixture, 1);
    expect((await logsOf(node, fixture)).map((log) => log.transactionHash)).toEqual([
      after,
      after,
      after,
    ]);
    await stop();
    expect(await check()).toEqual(expect.objectContaining({ problems: [] }));
  });

  it('keeps a revert answered before kill -9, and a snapshot taken before it', async () => {
    let node = await start();
    const fixture = await deployFixture(node);
    const kept = await node.rpc.call<string>('evm_snapshot');
    const keptHead = await head(node);
    await loggingBlocks(node, fixture, 2);
    const id = await node.rpc.call<string>('evm_snapshot');
    const snapshotHead = await head(node);
    await loggingBlocks(node, fixture, 3);
    expect(await node.rpc.call('evm_revert', [id])).toBe(true);
    // At once, so that the log index may not have caught up with the rewind.
    await kill();

    node = await start();
    expect(await head(node)).toEqual(snapshotHead);
    expect(await logsOf(node, fixture)).toHaveLength(6);
    await kill();
    expect(await check()).toEqual(
      expect.objectContaining({ problems: [], head: Number(snapshotHead.number) }),
    );

    node = await start();
    expect(await node.rpc.call('evm_revert', [kept])).toBe(true);
    expect(await head(node)).toEqual(keptHead);
    expect(await logsOf(node, fixture)).toEqual([]);
    const hash = await send(node, {
      to: fixture,
      data: FIXTURE_ABI.encodeFunctionData('set', [5]),
    });
    expect(BigInt((await mined(node, hash)).blockNumber)).toBe(BigInt(keptHead.number) + 1n);
    await kill();
    expect(await check()).toEqual(expect.objectContaining({ problems: [] }));
  });

  it('opens the store again after a rewind of a thousand blocks (LMDB frees pages it never wrote)', async () => {
    let node = await start();
    const fixture = await deployFixture(node);
    await loggingBlocks(node, fixture, 5);
    await node.rpc.call('hardhat_mine', ['0x3e8']);
    await node.rpc.call('anvil_reset');
    await kill();
    // The start checks the store file before mapping it, and rebuilds a log index the kill
    // left ahead of the chain.
    node = await start();
    expect((await head(node)).number).toBe('0x0');
    expect(await logsOf(node, fixture)).toEqual([]);
    await stop();
    expect(await check()).toEqual(expect.objectContaining({ problems: [], head: 0 }));
  });
});
