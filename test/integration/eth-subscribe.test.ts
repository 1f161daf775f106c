/**
 * eth_subscribe over the daemon's WebSocket endpoint, with a steady block rhythm
 * (`--block-time 200ms`): the notification form on the wire, viem `watchBlocks` (newHeads),
 * ethers v6 `WebSocketProvider` contract events (logs), pending transactions, the refusal over
 * HTTP, and the idle expiry of polling filters (`--json-rpc.filter-timeout`).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contract, Interface, WebSocketProvider, id as eventTopic } from 'ethers';
import { createPublicClient, webSocket, type Block } from 'viem';
import { RpcResponseError } from '../../src/client/errors.js';
import { WsRpcClient, type Notification } from '../../src/client/ws-rpc-client.js';
import { loadContract } from '../helpers/contracts.js';
import { devWallet, signDynamicFeeTx, waitForReceipt } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TICK = eventTopic('Tick(uint256)');

interface SubscriptionMessage {
  subscription: string;
  result: unknown;
}

/** Collects the notifications of a raw WebSocket client, per subscription. */
function collect(client: WsRpcClient): (id: string) => unknown[] {
  const received: Notification[] = [];
  client.onNotification((notification) => received.push(notification));
  return (id) =>
    received
      .filter((n) => (n.params as SubscriptionMessage).subscription === id)
      .map((n) => {
        expect(n.method).toBe('eth_subscription');
        return (n.params as SubscriptionMessage).result;
      });
}

describe('eth_subscribe over WebSocket (--block-time 200ms)', () => {
  let daemon: TestDaemon;
  let client: WsRpcClient;
  let received: (id: string) => unknown[];
  let fixtureAddress: string;
  let nonce = 0;

  const sendRaw = async (request: { to?: string; data?: string; gasLimit?: bigint }) => {
    const raw = await signDynamicFeeTx(devWallet(1), { nonce: nonce++, ...request });
    return daemon.rpc.call<string>('eth_sendRawTransaction', [raw]);
  };

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--json-rpc.ethereum-compat',
      '--block-time',
      '200ms',
      '--json-rpc.filter-timeout',
      '1s',
    ]);
    client = await WsRpcClient.connect(daemon.endpoints.ws);
    received = collect(client);
    const artifact = loadContract('Fixture');
    const hash = await sendRaw({ data: artifact.bytecode, gasLimit: 1_000_000n });
    fixtureAddress = (await waitForReceipt(daemon.rpc, hash)).contractAddress as string;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
  });

  it('sends new heads in the standard notification form', async () => {
    const id = await client.call<string>('eth_subscribe', ['newHeads']);
    expect(id).toMatch(/^0x[0-9a-f]+$/);
    await waitFor(() => received(id).length >= 2, 10_000, 'two heads');
    const [first, second] = received(id) as Array<Record<string, unknown>>;
    expect(BigInt(second.number as string)).toBe(BigInt(first.number as string) + 1n);
    expect(second.parentHash).toBe(first.hash);
    const block = await daemon.rpc.call<Record<string, unknown>>('eth_getBlockByNumber', [
      first.number,
      false,
    ]);
    expect(first).toEqual(block);
    expect(await client.call('eth_unsubscribe', [id])).toBe(true);
    await expect(client.call('eth_unsubscribe', [id])).rejects.toThrow('subscription not found');
  });

  it('feeds viem watchBlocks every block, in order', async () => {
    const viem = createPublicClient({ transport: webSocket(daemon.endpoints.ws) });
    const blocks: Block[] = [];
    const unwatch = viem.watchBlocks({ onBlock: (block) => void blocks.push(block) });
    try {
      await waitFor(() => blocks.length >= 6, 15_000, 'six blocks through viem');
      const numbers = blocks.map((block) => block.number!);
      numbers.forEach((number, i) => i > 0 && expect(number).toBe(numbers[i - 1] + 1n));
      expect(blocks[1].parentHash).toBe(blocks[0].hash);
    } finally {
      unwatch();
      await viem.transport.getRpcClient().then((rpc) => rpc.close());
    }
  });

  it('delivers contract events to ethers contract.on through a logs subscription', async () => {
    const provider = new WebSocketProvider(daemon.endpoints.ws);
    try {
      const artifact = loadContract('Fixture');
      const fixture = new Contract(fixtureAddress, artifact.abi, provider);
      const seen: Array<[string, bigint]> = [];
      await fixture.on('ValueSet', (who: string, value: bigint) => void seen.push([who, value]));
      const writer = new Contract(fixtureAddress, artifact.abi, devWallet(2).connect(provider));
      const setValue = writer.getFunction('set');
      await setValue(41n);
      await waitFor(() => seen.length >= 1, 15_000, 'the ValueSet event');
      expect(seen).toEqual([[devWallet(2).address, 41n]]);
      await fixture.removeAllListeners();
    } finally {
      await provider.destroy();
    }
  });

  it('sends only the logs a filter selects, one notification each', async () => {
    const id = await client.call<string>('eth_subscribe', [
      'logs',
      { address: fixtureAddress, topics: [TICK, null] },
    ]);
    const fixture = new Interface(loadContract('Fixture').abi);
    const hash = await sendRaw({
      to: fixtureAddress,
      data: fixture.encodeFunctionData('emitMany', [3]),
      gasLimit: 200_000n,
    });
    await waitFor(() => received(id).length >= 3, 10_000, 'three Tick logs');
    const logs = received(id) as Array<{ transactionHash: string; topics: string[] }>;
    expect(logs.map((log) => log.transactionHash)).toEqual([hash, hash, hash]);
    expect(logs.map((log) => BigInt(log.topics[1]))).toEqual([0n, 1n, 2n]);
    expect(await client.call('eth_unsubscribe', [id])).toBe(true);
  });

  it('announces pending transactions by hash, or in full', async () => {
    const hashes = await client.call<string>('eth_subscribe', ['newPendingTransactions']);
    const full = await client.call<string>('eth_subscribe', ['newPendingTransactions', true]);
    const hash = await sendRaw({ to: devWallet(3).address });
    await waitFor(() => received(full).length >= 1, 10_000, 'the pending transaction');
    expect(received(hashes)).toEqual([hash]);
    expect(received(full)).toEqual([
      expect.objectContaining({ hash, from: devWallet(1).address.toLowerCase(), blockHash: null }),
    ]);
  });

  it('reports syncing false', async () => {
    const id = await client.call<string>('eth_subscribe', ['syncing']);
    await waitFor(() => received(id).length >= 1, 5_000, 'the syncing notification');
    expect(received(id)).toEqual([false]);
  });

  it('refuses subscriptions over HTTP', async () => {
    const error = await daemon.rpc.call('eth_subscribe', ['newHeads']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcResponseError);
    expect((error as RpcResponseError).message).toBe('notifications not supported');
  });

  it('removes a polling filter nobody polls within --json-rpc.filter-timeout', async () => {
    const filter = await daemon.rpc.call<string>('eth_newFilter', [{ address: fixtureAddress }]);
    expect(await daemon.rpc.call('eth_getFilterLogs', [filter])).toEqual(expect.any(Array));
    // eth_getFilterLogs does not count as a poll (as in geth), so it can watch the expiry.
    await waitFor(
      () =>
        daemon.rpc.call('eth_getFilterLogs', [filter]).then(
          () => false,
          (error: RpcResponseError) => error.message === 'filter not found',
        ),
      10_000,
      'the filter to expire',
    );
  });
});
