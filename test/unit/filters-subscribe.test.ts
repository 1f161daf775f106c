import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Address } from '@ethereumjs/util';
import { bytesToHex, concatBytes } from '@ethereumjs/util';
import { pooled } from './chain-fixtures.js';
import { filtersRpc, RecordingConnection, type FiltersRpc } from './filters-rpc.js';
import { openLogChain, word, type LogChain } from './logs-fixtures.js';

const TOPIC_A = bytesToHex(word(0xa));
const TOPIC_B = bytesToHex(word(0xb));

describe('eth_subscribe', () => {
  let logChain: LogChain;
  let emitters: Address[];
  let rpc: FiltersRpc;
  let connection: RecordingConnection;

  beforeEach(async () => {
    logChain = await openLogChain();
    emitters = await logChain.deployEmitters();
    rpc = filtersRpc(logChain);
    connection = new RecordingConnection();
  });

  afterEach(async () => {
    connection.close();
    rpc.close();
    await logChain.close();
  });

  const subscribe = async (...params: unknown[]): Promise<string> => {
    const reply = await rpc.call('eth_subscribe', params, connection.context());
    expect(reply.error).toBeUndefined();
    return reply.result as string;
  };

  const emit = (...topics: string[]) =>
    logChain.commit(
      topics.map((topic, i) =>
        logChain.tx({ to: emitters[1], data: concatBytes(word(BigInt(topic)), word(i)) }),
      ),
    );

  const results = (id: string) =>
    connection.notifications
      .filter((n) => n.params.subscription === id)
      .map((n) => {
        expect(n.method).toBe('eth_subscription');
        return n.params.result;
      });

  const blockListeners = () => logChain.bus.listenerCount().block;

  it('is refused over HTTP: notifications need a persistent connection', async () => {
    expect((await rpc.call('eth_subscribe', ['newHeads'])).error).toEqual({
      code: -32000,
      message: 'notifications not supported',
    });
    expect((await rpc.call('eth_unsubscribe', ['0x1'])).error?.message).toBe(
      'notifications not supported',
    );
  });

  it('sends each new head, with full transactions when asked', async () => {
    const heads = await subscribe('newHeads');
    const full = await subscribe('newHeads', { includeTransactions: true });
    expect(heads).not.toBe(full);
    const block = await emit(TOPIC_A);
    const [head] = results(heads) as Array<Record<string, unknown>>;
    expect(head).toMatchObject({
      hash: block.block.hashHex,
      number: `0x${block.block.number.toString(16)}`,
      transactions: [block.results[0].hashHex],
    });
    const [withTxs] = results(full) as Array<{ transactions: Array<Record<string, unknown>> }>;
    expect(withTxs.transactions[0]).toMatchObject({
      hash: block.results[0].hashHex,
      blockHash: block.block.hashHex,
      to: emitters[1].toString(),
    });
  });

  it('sends matching logs one notification each', async () => {
    const id = await subscribe('logs', { address: [emitters[1].toString()], topics: [[TOPIC_B]] });
    const everything = await subscribe('logs');
    await emit(TOPIC_A, TOPIC_B, TOPIC_B);
    expect((results(id) as Array<{ logIndex: string }>).map((log) => log.logIndex)).toEqual([
      '0x1',
      '0x2',
    ]);
    expect(results(everything)).toHaveLength(3);
  });

  it('sends pending transaction hashes, or the transactions when asked', async () => {
    const hashes = await subscribe('newPendingTransactions');
    const full = await subscribe('newPendingTransactions', true);
    const tx = pooled(logChain.tx({ to: emitters[0], data: word(1) }));
    logChain.bus.publishPendingTx(tx);
    expect(results(hashes)).toEqual([tx.hashHex]);
    expect(results(full)).toEqual([
      expect.objectContaining({ hash: tx.hashHex, blockHash: null, from: tx.senderHex }),
    ]);
  });

  it('reports syncing false once, after the reply', async () => {
    const id = await subscribe('syncing');
    await new Promise((resolve) => setImmediate(resolve));
    expect(results(id)).toEqual([false]);
  });

  it('unsubscribes only subscriptions of the same connection', async () => {
    const before = blockListeners();
    const id = await subscribe('newHeads');
    expect(blockListeners()).toBe(before + 1);
    const other = new RecordingConnection();
    expect((await rpc.call('eth_unsubscribe', [id], other.context())).error).toEqual({
      code: -32000,
      message: 'subscription not found',
    });
    expect((await rpc.call('eth_unsubscribe', [id], connection.context())).result).toBe(true);
    expect(blockListeners()).toBe(before);
    expect((await rpc.call('eth_unsubscribe', [id], connection.context())).error?.message).toBe(
      'subscription not found',
    );
    await emit();
    expect(results(id)).toEqual([]);
  });

  it('ends every subscription of a connection when it closes', async () => {
    const before = logChain.bus.listenerCount();
    await subscribe('newHeads');
    await subscribe('logs', {});
    await subscribe('newPendingTransactions');
    connection.close();
    expect(logChain.bus.listenerCount()).toEqual(before);
  });

  it('drops the subscriptions of a client the transport dropped, without holding up blocks', async () => {
    const before = blockListeners();
    const id = await subscribe('newHeads');
    await emit();
    connection.accepting = false;
    await emit();
    expect(blockListeners()).toBe(before);
    connection.accepting = true;
    await emit();
    expect(results(id)).toHaveLength(1);
  });

  it('validates the subscription name and its options', async () => {
    const context = connection.context();
    const unknown = await rpc.call('eth_subscribe', ['newBlocks'], context);
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toContain('newHeads, logs, newPendingTransactions, syncing');
    const badFilter = await rpc.call('eth_subscribe', ['logs', { address: '0x12' }], context);
    expect(badFilter.error?.code).toBe(-32602);
    expect(badFilter.error?.message).toContain('argument 1 (options)');
  });
});
