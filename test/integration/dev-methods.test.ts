/**
 * The test-control methods of Hardhat and anvil (docs/dev-methods.md) against a real daemon,
 * through ethers, the project's clients, Foundry's cast and viem's test client: snapshot and
 * revert rewind the stored chain (balances, nonces, blocks, receipts, logs, filters,
 * subscriptions, the consensus socket, the store check), time control shows in block
 * timestamps, setters take effect in blocks of their own, impersonation sends without a key,
 * and a daemon without --dev.methods refuses them all with an error that says so.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contract, Interface, JsonRpcProvider, type Wallet } from 'ethers';
import {
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  publicActions,
  type Address,
  type Hex,
} from 'viem';
import { ConsensusWsClient, type ConsensusEvent } from '../../src/client/consensus-ws-client.js';
import { RpcResponseError } from '../../src/client/errors.js';
import { WsRpcClient, type Notification } from '../../src/client/ws-rpc-client.js';
import { devMethodNames } from '../../src/daemon/api/dev-methods.js';
import { runCliJson } from '../helpers/cli.js';
import { deployFixture, loadContract } from '../helpers/contracts.js';
import { DEV_BALANCE, DEV_CHAIN_ID, devWallet, type RawReceipt } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Blocks only when transactions are pending (Hardhat's automine), in the field values ethers and cast read. */
const FLAGS = ['--block-time', '0', '--json-rpc.ethereum-compat'];
const CAST = fileURLToPath(new URL('../../node_modules/.bin/cast', import.meta.url));
const TOKEN = new Interface(loadContract('Token').abi);

interface RawBlock {
  number: string;
  hash: string;
  timestamp: string;
  stateRoot: string;
}

interface RawLog {
  blockNumber: string;
  transactionHash: string;
  removed: boolean;
}

interface CheckReport {
  problems: string[];
  head: number;
}

function cast(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(CAST, args, { timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`cast ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

/** A keyless address, different per test. */
function keyless(n: number): string {
  return `0x${'ab'.repeat(18)}${n.toString(16).padStart(4, '0')}`;
}

/** viem's test client (`anvil` or `hardhat` mode) on the daemon, with its public actions, and the chain and transport it uses. */
function viemTestClient(daemon: TestDaemon, mode: 'anvil' | 'hardhat') {
  const chain = defineChain({
    id: Number(DEV_CHAIN_ID),
    name: 'node-cli dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [daemon.endpoints.http] } },
  });
  const transport = http(daemon.endpoints.http);
  const client = createTestClient({ chain, mode, transport, cacheTime: 0 }).extend(publicActions);
  return { client, chain, transport };
}

describe('dev methods on a dev chain', () => {
  let daemon: TestDaemon;
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  const rpc = <T = unknown>(method: string, params: unknown[] = []) =>
    daemon.rpc.call<T>(method, params);
  const blockNumber = async () => BigInt(await rpc<string>('eth_blockNumber'));
  const latest = () => rpc<RawBlock>('eth_getBlockByNumber', ['latest', false]);
  const receipt = async (hash: string): Promise<RawReceipt> => {
    let found: RawReceipt | null = null;
    await waitFor(
      async () =>
        (found = await rpc<RawReceipt | null>('eth_getTransactionReceipt', [hash])) !== null,
      20_000,
      `receipt of ${hash}`,
    );
    return found!;
  };
  const check = () => runCliJson<CheckReport>(['daemon', 'check', '--datadir', daemon.dataDir]);

  beforeAll(async () => {
    daemon = await startTestDaemon(FLAGS);
    // No cache: blocks come within ethers' default 250 ms of each other.
    provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    provider.pollingInterval = 50;
    wallet = devWallet(1).connect(provider);
  });

  afterAll(async () => {
    provider?.destroy();
    await daemon?.stop();
  });

  it('reverts to a snapshot: balances, nonce, blocks, receipts, logs, filters, subscriptions', async () => {
    const token = await deployFixture('Token', wallet, 1_000_000n);
    const tokenAddress = (await token.getAddress()).toLowerCase();
    const ws = await WsRpcClient.connect(daemon.endpoints.ws);
    const consensus = await ConsensusWsClient.connect(daemon.endpoints.consensusWs!);
    try {
      const notifications: Notification[] = [];
      ws.onNotification((n) => notifications.push(n));
      await ws.call('eth_subscribe', ['logs', { address: tokenAddress }]);
      const rewinds: ConsensusEvent[] = [];
      await consensus.subscribe("tm.event = 'Rewind'", (event) => rewinds.push(event));
      const filter = await rpc<string>('eth_newFilter', [{ address: tokenAddress }]);

      const id = await provider.send('evm_snapshot', []);
      const before = {
        number: await blockNumber(),
        balance: await provider.getBalance(wallet.address),
        nonce: await provider.getTransactionCount(wallet.address),
        head: await latest(),
      };
      const recipient = keyless(1);
      const sent = await (token.transfer as (to: string, v: bigint) => Promise<{ hash: string }>)(
        recipient,
        250n,
      );
      const mined = await receipt(sent.hash);
      const logRange = [{ fromBlock: '0x0', toBlock: 'latest', address: tokenAddress }];
      expect(
        (await rpc<RawLog[]>('eth_getLogs', logRange)).map((l) => l.transactionHash),
      ).toContain(sent.hash);
      expect(await rpc<RawLog[]>('eth_getFilterChanges', [filter])).toHaveLength(1);
      await waitFor(() => notifications.length === 1, 10_000, 'the log notification');

      expect(await provider.send('evm_revert', [id])).toBe(true);

      expect(await blockNumber()).toBe(before.number);
      expect(await latest()).toEqual(before.head);
      expect(await provider.getBalance(wallet.address)).toBe(before.balance);
      expect(await provider.getTransactionCount(wallet.address)).toBe(before.nonce);
      expect(await token.balanceOf(recipient)).toBe(0n);
      expect(await rpc('eth_getTransactionReceipt', [sent.hash])).toBeNull();
      expect(await rpc('eth_getTransactionByHash', [sent.hash])).toBeNull();
      expect(await rpc('eth_getBlockByHash', [mined.blockHash, false])).toBeNull();
      expect(
        (await rpc<RawLog[]>('eth_getLogs', logRange)).map((l) => l.transactionHash),
      ).not.toContain(sent.hash);
      const removed = await rpc<RawLog[]>('eth_getFilterChanges', [filter]);
      expect(removed).toEqual([
        expect.objectContaining({ transactionHash: sent.hash, removed: true }),
      ]);
      await waitFor(() => notifications.length === 2, 10_000, 'the removed-log notification');
      expect(notifications[1].params).toEqual(
        expect.objectContaining({
          result: expect.objectContaining({ transactionHash: sent.hash, removed: true }),
        }),
      );
      await waitFor(() => rewinds.length === 1, 10_000, 'the Rewind event');
      expect(rewinds[0].events).toEqual(
        expect.objectContaining({
          'rewind.height': [before.number.toString()],
          'rewind.previous_height': [(before.number + 1n).toString()],
          'rewind.cause': ['evm_revert'],
        }),
      );
      // Used up: a second revert to it is refused, as in Hardhat.
      expect(await provider.send('evm_revert', [id])).toBe(false);

      // The chain goes on from the snapshot: the same height gets a new block.
      const again = await (token.transfer as (to: string, v: bigint) => Promise<{ hash: string }>)(
        recipient,
        7n,
      );
      const remined = await receipt(again.hash);
      expect(BigInt(remined.blockNumber)).toBe(before.number + 1n);
      expect(remined.blockHash).not.toBe(mined.blockHash);
      expect(await token.balanceOf(recipient)).toBe(7n);
      const logs = await rpc<RawLog[]>('eth_getLogs', logRange);
      expect(logs.map((l) => l.transactionHash)).toContain(again.hash);
      expect(logs.every((l) => !l.removed)).toBe(true);
      expect(await check()).toEqual(expect.objectContaining({ problems: [] }));
    } finally {
      await ws.close();
      await consensus.close();
    }
  });

  it('numbers snapshots upwards; a revert uses up that snapshot and every later one', async () => {
    const first = await rpc<string>('evm_snapshot');
    await rpc('hardhat_mine', ['0x2']);
    const second = await rpc<string>('evm_snapshot');
    await rpc('hardhat_mine', ['0x2']);
    const third = await rpc<string>('evm_snapshot');
    expect(BigInt(second)).toBeGreaterThan(BigInt(first));
    expect(BigInt(third)).toBeGreaterThan(BigInt(second));
    const atFirst = await blockNumber();
    expect(await rpc('evm_revert', [second])).toBe(true);
    expect(await rpc('evm_revert', [third])).toBe(false);
    expect(await rpc('evm_revert', [first])).toBe(true);
    expect(await blockNumber()).toBe(atFirst - 4n);
    expect(await rpc('evm_revert', ['0xffff'])).toBe(false);
  });

  it('moves block time: increaseTime, setNextBlockTimestamp, mine with a timestamp and intervals', async () => {
    const timestamp = async () => BigInt((await latest()).timestamp);
    const start = await timestamp();
    expect(await rpc('evm_increaseTime', [3600])).toBe('3600');
    await rpc('evm_mine');
    expect(await timestamp()).toBeGreaterThanOrEqual(start + 3600n);

    const chosen = (await timestamp()) + 1000n;
    await rpc('evm_setNextBlockTimestamp', [`0x${chosen.toString(16)}`]);
    await rpc('evm_mine');
    expect(await timestamp()).toBe(chosen);
    await rpc('evm_mine', [Number(chosen + 50n)]);
    expect(await timestamp()).toBe(chosen + 50n);
    await expect(rpc('evm_setNextBlockTimestamp', [Number(chosen)])).rejects.toThrow(
      /lower than or equal to the previous block's timestamp/,
    );

    const from = await blockNumber();
    await rpc('hardhat_mine', ['0x3', '0x3c']);
    const stamps = await Promise.all(
      [1n, 2n, 3n].map(async (n) =>
        BigInt(
          (await rpc<RawBlock>('eth_getBlockByNumber', [`0x${(from + n).toString(16)}`, false]))
            .timestamp,
        ),
      ),
    );
    expect([stamps[1] - stamps[0], stamps[2] - stamps[1]]).toEqual([60n, 60n]);

    await rpc('anvil_setBlockTimestampInterval', [10]);
    const base = await timestamp();
    await rpc('anvil_mine', ['0x2']);
    expect(await timestamp()).toBe(base + 20n);
    expect(await rpc('anvil_removeBlockTimestampInterval')).toBe(true);

    const future = (await timestamp()) + 86_400n;
    await rpc('anvil_setTime', [Number(future)]);
    await rpc('evm_mine');
    expect(await timestamp()).toBeGreaterThanOrEqual(future);
  });

  it('refuses values past their limits with an error naming them, and goes on', async () => {
    const refusal = (method: string, params: unknown[]) =>
      rpc(method, params).then(
        () => undefined,
        (error: unknown) => error as RpcResponseError,
      );
    expect(await refusal('hardhat_mine', ['0x2711'])).toEqual(
      expect.objectContaining({ message: expect.stringContaining('at most 10000') }),
    );
    expect(await refusal('evm_setNextBlockTimestamp', [`0x${(2n ** 60n).toString(16)}`])).toEqual(
      expect.objectContaining({ code: -32602, message: expect.stringContaining('timestamp') }),
    );
    expect(await refusal('evm_setIntervalMining', [2 ** 40])).toEqual(
      expect.objectContaining({ code: -32602, message: expect.stringContaining('interval') }),
    );
    expect(await refusal('hardhat_setNonce', [keyless(10), `0x${'f'.repeat(16)}`])).toEqual(
      expect.objectContaining({ code: -32602, message: expect.stringContaining('nonce') }),
    );
    expect(
      await refusal('anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }]),
    ).toEqual(
      expect.objectContaining({ message: expect.stringContaining('forking is not supported') }),
    );
    expect(await refusal('evm_revert', [])).toEqual(expect.objectContaining({ code: -32602 }));
    // A JSON number past 2^53 is no exact integer (1e308 was taken, and its 1 024-bit balance
    // failed to encode): larger values come as hex of at most 256 bits.
    for (const balance of [1e308, 1e78, 2 ** 53]) {
      expect(await refusal('hardhat_setBalance', [keyless(10), balance])).toEqual(
        expect.objectContaining({ code: -32602, message: expect.stringContaining('balance') }),
      );
    }
    const head = await blockNumber();
    await rpc('evm_mine');
    expect(await blockNumber()).toBe(head + 1n);
  });

  it('switches automine and interval mining, and drops pooled transactions', async () => {
    expect(await rpc('hardhat_getAutomine')).toBe(true);
    expect(await rpc('evm_setAutomine', [false])).toBe(true);
    expect(await rpc('anvil_getAutomine')).toBe(false);
    const sender = devWallet(2).address;
    const send = () =>
      rpc<string>('eth_sendTransaction', [{ from: sender, to: keyless(2), value: '0x1' }]);
    const waiting = await send();
    const head = await blockNumber();
    expect(await rpc('eth_getTransactionReceipt', [waiting])).toBeNull();
    await rpc('evm_mine');
    expect((await receipt(waiting)).blockNumber).toBe(`0x${(head + 1n).toString(16)}`);

    const dropped = await send();
    expect(await rpc('anvil_dropTransaction', [dropped])).toBe(dropped);
    expect(await rpc('hardhat_dropTransaction', [dropped])).toBe(false);
    expect(await rpc('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });

    await rpc('evm_setIntervalMining', [100]);
    const ticking = await blockNumber();
    await waitFor(async () => (await blockNumber()) >= ticking + 2n, 10_000, 'interval blocks');
    await rpc('evm_setIntervalMining', [0]);
    await expect(rpc('evm_setIntervalMining', [[100, 200]])).rejects.toThrow(/random mining/);
    await rpc('evm_setAutomine', [true]);
    await receipt(await send());
  });

  it('sets balance, nonce, code and storage in blocks of their own', async () => {
    const target = keyless(3);
    const head = await blockNumber();
    expect(await rpc('hardhat_setBalance', [target, '0x0de0b6b3a7640000'])).toBe(true);
    expect(await blockNumber()).toBe(head + 1n);
    expect(await provider.getBalance(target)).toBe(10n ** 18n);
    expect(await rpc('anvil_setNonce', [target, '0x2a'])).toBeNull();
    expect(await provider.getTransactionCount(target)).toBe(42);
    const code = loadContract('Fixture').deployedBytecode;
    await rpc('hardhat_setCode', [target, code]);
    expect(await provider.getCode(target)).toBe(code);
    await rpc('anvil_setStorageAt', [target, '0x0', `0x${'00'.repeat(31)}2a`]);
    const fixture = new Contract(target, loadContract('Fixture').abi, provider);
    expect(await (fixture.get as () => Promise<bigint>)()).toBe(42n);
    // The balance set before is still there: each setter changes only what it names.
    expect(await provider.getBalance(target)).toBe(10n ** 18n);

    // A dev account with a nonce moved forward sends with it.
    const mover = devWallet(3);
    await rpc('hardhat_setNonce', [mover.address, '0x64']);
    const moved = await rpc<string>('eth_sendTransaction', [
      { from: mover.address, to: target, value: '0x1' },
    ]);
    await receipt(moved);
    expect(await provider.getTransactionCount(mover.address)).toBe(101);
    expect(await check()).toEqual(expect.objectContaining({ problems: [] }));
  });

  it('sends from an impersonated address without its key', async () => {
    const token = await deployFixture('Token', wallet, 1_000_000n);
    const tokenAddress = await token.getAddress();
    const whale = keyless(4);
    const recipient = keyless(5);
    await receipt(
      (
        await (token.transfer as (to: string, v: bigint) => Promise<{ hash: string }>)(
          whale,
          5_000n,
        )
      ).hash,
    );
    await rpc('hardhat_setBalance', [whale, '0xde0b6b3a7640000']);
    const transfer = {
      from: whale,
      to: tokenAddress,
      data: TOKEN.encodeFunctionData('transfer', [recipient, 1_000n]),
      gas: '0x186a0',
    };
    await expect(rpc('eth_sendTransaction', [transfer])).rejects.toThrow(RpcResponseError);

    await rpc('hardhat_impersonateAccount', [whale]);
    const hash = await rpc<string>('eth_sendTransaction', [transfer]);
    const mined = await receipt(hash);
    expect(mined).toEqual(expect.objectContaining({ status: '0x1', from: whale }));
    expect(await token.balanceOf(recipient)).toBe(1_000n);
    const tx = await rpc<{ from: string }>('eth_getTransactionByHash', [hash]);
    expect(tx.from).toBe(whale);

    await rpc('hardhat_stopImpersonatingAccount', [whale]);
    await expect(rpc('eth_sendTransaction', [transfer])).rejects.toThrow(RpcResponseError);
    await rpc('anvil_autoImpersonateAccount', [true]);
    await receipt(await rpc<string>('eth_sendTransaction', [transfer]));
    expect(await token.balanceOf(recipient)).toBe(2_000n);
    await rpc('anvil_autoImpersonateAccount', [false]);
    expect(await check()).toEqual(expect.objectContaining({ problems: [] }));
  });

  it('drives the same scenarios through cast rpc anvil_*', async () => {
    const url = ['--rpc-url', daemon.endpoints.http];
    const target = keyless(6);
    const id = JSON.parse(await cast(['rpc', ...url, 'evm_snapshot'])) as string;
    await cast(['rpc', ...url, 'anvil_setBalance', target, '0x56bc75e2d63100000']);
    expect(await cast(['balance', ...url, target])).toBe('100000000000000000000');
    await cast(['rpc', ...url, 'anvil_setCode', target, '0x6001600055']);
    expect(await cast(['code', ...url, target])).toBe('0x6001600055');
    await cast(['rpc', ...url, 'anvil_setStorageAt', target, '0x1', `0x${'00'.repeat(31)}09`]);
    expect(BigInt(await cast(['storage', ...url, target, '1']))).toBe(9n);
    await cast(['rpc', ...url, 'anvil_setNonce', target, '0x5']);
    expect(await cast(['nonce', ...url, target])).toBe('5');

    const head = await blockNumber();
    await cast(['rpc', ...url, 'anvil_mine', '3', '60']);
    expect(await blockNumber()).toBe(head + 3n);
    await cast(['rpc', ...url, 'evm_increaseTime', '7200']);
    const before = BigInt((await latest()).timestamp);
    await cast(['rpc', ...url, 'evm_mine']);
    expect(BigInt((await latest()).timestamp)).toBeGreaterThanOrEqual(before + 7200n);

    const keylessSender = keyless(7);
    await cast(['rpc', ...url, 'anvil_setBalance', keylessSender, '0xde0b6b3a7640000']);
    await cast(['rpc', ...url, 'anvil_impersonateAccount', keylessSender]);
    await cast(['send', ...url, '--unlocked', '--from', keylessSender, target, '--value', '5']);
    expect(await cast(['balance', ...url, target])).toBe('100000000000000000005');
    await cast(['rpc', ...url, 'anvil_stopImpersonatingAccount', keylessSender]);

    expect(await cast(['rpc', ...url, 'evm_revert', id])).toBe('true');
    expect(await cast(['balance', ...url, target])).toBe('0');
    expect(await cast(['code', ...url, target])).toBe('0x');
  });

  it("drives the same scenarios through viem's anvil test client", async () => {
    const { client, chain, transport } = viemTestClient(daemon, 'anvil');
    const target = keyless(8) as Address;

    const id = await client.snapshot();
    await client.setBalance({ address: target, value: 3n * 10n ** 18n });
    expect(await client.getBalance({ address: target })).toBe(3n * 10n ** 18n);
    await client.setNonce({ address: target, nonce: 9 });
    expect(await client.getTransactionCount({ address: target })).toBe(9);
    await client.setCode({ address: target, bytecode: '0x6001600055' });
    expect(await client.getCode({ address: target })).toBe('0x6001600055');
    await client.setStorageAt({
      address: target,
      index: 2,
      value: `0x${'00'.repeat(31)}0b` as Hex,
    });
    expect(BigInt((await client.getStorageAt({ address: target, slot: '0x2' }))!)).toBe(11n);

    const head = await client.getBlockNumber();
    await client.mine({ blocks: 2, interval: 30 });
    expect(await client.getBlockNumber()).toBe(head + 2n);
    const [a, b] = await Promise.all(
      [head + 1n, head + 2n].map((blockNumber) => client.getBlock({ blockNumber })),
    );
    expect(b.timestamp - a.timestamp).toBe(30n);
    await client.increaseTime({ seconds: 600 });
    const next = (await client.getBlock()).timestamp + 5_000n;
    await client.setNextBlockTimestamp({ timestamp: next });
    await client.mine({ blocks: 1 });
    expect((await client.getBlock()).timestamp).toBe(next);
    await client.setBlockTimestampInterval({ interval: 5 });
    await client.mine({ blocks: 1 });
    expect((await client.getBlock()).timestamp).toBe(next + 5n);
    await client.removeBlockTimestampInterval();

    await client.setAutomine(false);
    expect(await client.getAutomine()).toBe(false);
    await client.setAutomine(true);

    const whale = keyless(9) as Address;
    await client.setBalance({ address: whale, value: 10n ** 18n });
    await client.impersonateAccount({ address: whale });
    const walletClient = createWalletClient({ chain, transport });
    const hash = await walletClient.sendTransaction({ account: whale, to: target, value: 4n });
    const mined = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(mined.from).toBe(whale);
    await client.stopImpersonatingAccount({ address: whale });

    await client.revert({ id });
    expect(await client.getBalance({ address: target })).toBe(0n);
    expect(await client.getBlockNumber()).toBeLessThan(head + 1n);

    await client.reset();
    expect(await client.getBlockNumber()).toBe(0n);
    expect(await client.getBalance({ address: wallet.address as Address })).toBe(DEV_BALANCE);
    expect(await check()).toEqual(expect.objectContaining({ problems: [], head: 0 }));
    // The chain goes on from genesis.
    await receipt(
      await rpc<string>('eth_sendTransaction', [
        { from: devWallet(2).address, to: target, value: '0x1' },
      ]),
    );
  });
});

describe("dev methods through viem's hardhat test client", () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon(FLAGS);
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('sends the hardhat_* forms: snapshot, setters, mine, time, impersonation, revert', async () => {
    const { client, chain, transport } = viemTestClient(daemon, 'hardhat');
    const target = keyless(11) as Address;
    const id = await client.snapshot();
    await client.setBalance({ address: target, value: 5n * 10n ** 18n });
    await client.setNonce({ address: target, nonce: 3 });
    await client.setCode({ address: target, bytecode: '0x6001600055' });
    await client.setStorageAt({
      address: target,
      index: 1,
      value: `0x${'00'.repeat(31)}07` as Hex,
    });
    expect(await client.getBalance({ address: target })).toBe(5n * 10n ** 18n);
    expect(await client.getTransactionCount({ address: target })).toBe(3);
    expect(BigInt((await client.getStorageAt({ address: target, slot: '0x1' }))!)).toBe(7n);

    const head = await client.getBlockNumber();
    await client.mine({ blocks: 3 });
    const blocks = await Promise.all(
      [head + 1n, head + 2n, head + 3n].map((blockNumber) => client.getBlock({ blockNumber })),
    );
    expect(blocks.map((b) => b.timestamp - blocks[0].timestamp)).toEqual([0n, 1n, 2n]);
    const before = (await client.getBlock()).timestamp;
    await client.increaseTime({ seconds: 86_400 });
    await client.mine({ blocks: 1 });
    expect((await client.getBlock()).timestamp).toBeGreaterThanOrEqual(before + 86_400n);
    expect(await client.getAutomine()).toBe(true);

    await client.impersonateAccount({ address: target });
    const walletClient = createWalletClient({ chain, transport });
    // `target` has code, which EIP-3607 refuses as a sender: a keyless holder without code sends.
    await client.stopImpersonatingAccount({ address: target });
    const holder = keyless(12) as Address;
    await client.setBalance({ address: holder, value: 10n ** 18n });
    await client.impersonateAccount({ address: holder });
    const hash = await walletClient.sendTransaction({ account: holder, to: target, value: 9n });
    expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe(
      'success',
    );

    await client.revert({ id });
    expect(await client.getBalance({ address: target })).toBe(0n);
    expect(await client.getBlockNumber()).toBe(head - 4n);
  });
});

describe('dev methods without --dev.methods', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon(['--no-dev.methods']);
  });
  afterAll(async () => {
    await daemon?.stop();
  });

  it('refuses every one of them with an error naming the flag, not "does not exist"', async () => {
    for (const method of devMethodNames()) {
      const refusal = await daemon.rpc.call(method, []).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(RpcResponseError);
      expect(refusal).toEqual(
        expect.objectContaining({
          code: -32000,
          message: expect.stringContaining('--dev or --dev.methods'),
        }),
      );
    }
    expect(await daemon.rpc.call('eth_blockNumber')).toMatch(/^0x/);
  });
});
