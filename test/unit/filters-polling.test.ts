import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Address } from '@ethereumjs/util';
import { bytesToHex, concatBytes } from '@ethereumjs/util';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import { PollingFilters } from '../../src/daemon/events/polling-filters.js';
import { pooled } from './chain-fixtures.js';
import { filtersRpc, type FiltersRpc } from './filters-rpc.js';
import { openLogChain, word, type LogChain } from './logs-fixtures.js';

const TOPIC_A = bytesToHex(word(0xa));
const TOPIC_B = bytesToHex(word(0xb));

describe('polling filters', () => {
  let logChain: LogChain;
  let emitters: Address[];
  let rpc: FiltersRpc;

  beforeEach(async () => {
    logChain = await openLogChain();
    emitters = await logChain.deployEmitters();
    rpc = filtersRpc(logChain);
  });

  afterEach(async () => {
    rpc.close();
    await logChain.close();
  });

  /** One block with a LOG1 under each of the given topics from emitter 1. */
  const emit = (...topics: string[]) =>
    logChain.commit(
      topics.map((topic, i) =>
        logChain.tx({ to: emitters[1], data: concatBytes(word(BigInt(topic)), word(i)) }),
      ),
    );

  it('gives block hashes since the last poll, then nothing', async () => {
    const { result: id } = await rpc.call('eth_newBlockFilter');
    expect(id).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/);
    const first = await emit();
    const second = await emit();
    expect((await rpc.call('eth_getFilterChanges', [id])).result).toEqual([
      first.block.hashHex,
      second.block.hashHex,
    ]);
    expect((await rpc.call('eth_getFilterChanges', [id])).result).toEqual([]);
  });

  it('gives logs matching the filter since the last poll, in the JSON-RPC log form', async () => {
    const { result: id } = await rpc.call('eth_newFilter', [
      { address: emitters[1].toString(), topics: [TOPIC_A] },
    ]);
    const block = await emit(TOPIC_A, TOPIC_B, TOPIC_A);
    const { result } = await rpc.call('eth_getFilterChanges', [id]);
    const logs = result as Array<Record<string, unknown>>;
    expect(logs.map((log) => log.logIndex)).toEqual(['0x0', '0x2']);
    expect(logs[0]).toEqual({
      address: emitters[1].toString(),
      topics: [TOPIC_A],
      data: bytesToHex(word(0)),
      blockNumber: `0x${block.block.number.toString(16)}`,
      transactionHash: block.results[0].hashHex,
      transactionIndex: '0x0',
      blockHash: block.block.hashHex,
      blockTimestamp: `0x${block.block.block.header.timestamp.toString(16)}`,
      logIndex: '0x0',
      removed: false,
    });
    expect((await rpc.call('eth_getFilterChanges', [id])).result).toEqual([]);
  });

  it('respects numeric block bounds of a log filter', async () => {
    const next = logChain.chain.head().number + 1n;
    const { result: id } = await rpc.call('eth_newFilter', [
      { fromBlock: `0x${(next + 1n).toString(16)}`, toBlock: `0x${(next + 1n).toString(16)}` },
    ]);
    await emit(TOPIC_A);
    const inside = await emit(TOPIC_B);
    await emit(TOPIC_A);
    const { result } = await rpc.call('eth_getFilterChanges', [id]);
    expect((result as Array<{ blockHash: string }>).map((log) => log.blockHash)).toEqual([
      inside.block.hashHex,
    ]);
    expect((await rpc.call('eth_getFilterLogs', [id])).result).toEqual(result);
  });

  it('answers eth_getFilterLogs with the whole history of the filter', async () => {
    await emit(TOPIC_A, TOPIC_B);
    const { result: id } = await rpc.call('eth_newFilter', [
      { fromBlock: '0x0', topics: [TOPIC_B] },
    ]);
    await emit(TOPIC_B);
    const { result } = await rpc.call('eth_getFilterLogs', [id]);
    expect((result as Array<{ topics: string[] }>).map((log) => log.topics)).toEqual([
      [TOPIC_B],
      [TOPIC_B],
    ]);
  });

  it("refuses eth_getFilterLogs on block and pending filters with the spec's message", async () => {
    const { result: blockId } = await rpc.call('eth_newBlockFilter');
    const { result: pendingId } = await rpc.call('eth_newPendingTransactionFilter');
    expect((await rpc.call('eth_getFilterLogs', [blockId])).error).toEqual({
      code: -32000,
      message: `filter ${String(blockId)} doesn't have a LogsSubscription type: got 5`,
    });
    expect((await rpc.call('eth_getFilterLogs', [pendingId])).error).toEqual({
      code: -32000,
      message: `filter ${String(pendingId)} doesn't have a LogsSubscription type: got 4`,
    });
  });

  it('collects the hashes of transactions published as pending', async () => {
    const { result: id } = await rpc.call('eth_newPendingTransactionFilter');
    const first = pooled(logChain.tx({ to: emitters[0], data: word(1) }));
    const second = pooled(logChain.tx({ to: emitters[0], data: word(2) }));
    logChain.bus.publishPendingTx(first);
    logChain.bus.publishPendingTx(second);
    expect((await rpc.call('eth_getFilterChanges', [id])).result).toEqual([
      first.hashHex,
      second.hashHex,
    ]);
    expect((await rpc.call('eth_getFilterChanges', [id])).result).toEqual([]);
  });

  it('uninstalls once, and then knows the filter no more', async () => {
    const { result: id } = await rpc.call('eth_newBlockFilter');
    expect((await rpc.call('eth_uninstallFilter', [id])).result).toBe(true);
    expect((await rpc.call('eth_uninstallFilter', [id])).result).toBe(false);
    expect((await rpc.call('eth_getFilterChanges', [id])).error).toEqual({
      code: -32000,
      message: 'filter not found',
    });
    expect(rpc.filters.size).toBe(0);
  });

  it('refuses a filter whose bounds are reversed, and a malformed filter id', async () => {
    expect((await rpc.call('eth_newFilter', [{ fromBlock: '0x5', toBlock: '0x2' }])).error).toEqual(
      {
        code: -32602,
        message: 'invalid block range params',
      },
    );
    expect((await rpc.call('eth_getFilterChanges', ['nope'])).error?.code).toBe(-32602);
  });
});

describe('polling filter expiry', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('removes a filter left unpolled for the timeout, and a poll restarts the clock', () => {
    jest.useFakeTimers();
    const filters = new PollingFilters({
      bus: new EventBus(),
      timeoutMs: 1_000,
      maxFilters: 10,
      maxPerClient: 10,
    });
    const polled = filters.installBlockFilter('client');
    const idle = filters.installBlockFilter('client');
    jest.advanceTimersByTime(900);
    expect(filters.changes(polled)).toEqual({ kind: 'hashes', hashes: [] });
    jest.advanceTimersByTime(900);
    expect(filters.uninstall(idle)).toBe(false);
    expect(filters.changes(polled)).toEqual({ kind: 'hashes', hashes: [] });
    jest.advanceTimersByTime(1_001);
    expect(() => filters.changes(polled)).toThrow('filter not found');
    expect(filters.size).toBe(0);
    filters.close();
  });
});

describe('polling filter limits', () => {
  it('refuses filters past the per-client and node-wide limits, and frees a slot on uninstall', () => {
    const filters = new PollingFilters({
      bus: new EventBus(),
      timeoutMs: 60_000,
      maxFilters: 3,
      maxPerClient: 2,
    });
    const first = filters.installBlockFilter('a');
    filters.installPendingTransactionFilter('a');
    expect(() => filters.installBlockFilter('a')).toThrow(
      'too many filters: this client holds 2, the limit per client (--json-rpc.filters-per-client)',
    );
    filters.installBlockFilter('b');
    expect(() => filters.installBlockFilter('c')).toThrow(
      'too many filters: the node holds 3, its limit (--json-rpc.max-filters)',
    );
    expect(filters.uninstall(first)).toBe(true);
    expect(filters.uninstall(first)).toBe(false);
    expect(typeof filters.installBlockFilter('a')).toBe('string');
    expect(filters.size).toBe(3);
    filters.close();
  });
});
