import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ConsensusWsClient } from '../../src/client/consensus-ws-client.js';
import { WsRpcClient } from '../../src/client/ws-rpc-client.js';
import {
  devWallet,
  resumeMining,
  signDynamicFeeTx,
  stopMining,
  waitForReceipt,
} from '../helpers/dev-chain.js';
import { delta, scrape, seriesOf, value, type Scrape } from '../helpers/metrics-scrape.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DOCS = new URL('../../docs/metrics.md', import.meta.url);

describe('Prometheus metrics (--metrics.enable)', () => {
  let daemon: TestDaemon;
  let metricsUrl: string;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--metrics.enable', '--metrics.address', '127.0.0.1:0']);
    metricsUrl = daemon.endpoints.metrics as string;
  });
  afterAll(() => daemon?.stop());

  it('serves text a strict parser reads, with the process metrics and every documented metric', async () => {
    const response = await fetch(new URL('/metrics', metricsUrl));
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const scraped = await scrape(metricsUrl);
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(scraped.has(name)).toBe(true);
    }
    const served = [...scraped.keys()].filter((name) => name.startsWith('nodecli_')).sort();
    const documented = [
      ...new Set(readFileSync(DOCS, 'utf8').match(/^\| `(nodecli_[a-z_]+)`/gm) ?? []),
    ]
      .map((row) => row.slice(3, -1))
      .sort();
    expect(served).toEqual(documented);
    expect(value(scraped, 'nodecli_head_block_number')).toBeGreaterThanOrEqual(0);
  });

  it('counts JSON-RPC calls by method and outcome, exactly as many as were made', async () => {
    const before = await scrape(metricsUrl);
    for (let i = 0; i < 7; i++) await daemon.rpc.call('eth_blockNumber');
    for (let i = 0; i < 3; i++) {
      await expect(daemon.rpc.call('eth_getBalance', ['0x1234'])).rejects.toThrow();
    }
    const after = await scrape(metricsUrl);
    const calls = 'nodecli_rpc_requests_total';
    expect(delta(before, after, calls, { method: 'eth_blockNumber', outcome: 'success' })).toBe(7);
    expect(
      delta(before, after, calls, { method: 'eth_getBalance', outcome: 'invalid_params' }),
    ).toBe(3);
    expect(delta(before, after, calls)).toBe(10);
    const latency = 'nodecli_rpc_request_duration_seconds_count';
    expect(delta(before, after, latency, { method: 'eth_blockNumber' })).toBe(7);
    expect(delta(before, after, latency, { method: 'eth_getBalance' })).toBe(3);
  });

  it('puts a flood of unknown method names in one series', async () => {
    const before = await scrape(metricsUrl);
    const flood = Array.from({ length: 500 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: `made_up_${i}_${Math.random().toString(36).slice(2)}`,
    }));
    await daemon.rpc.post(JSON.stringify(flood));
    const after = await scrape(metricsUrl);
    const unknown = { method: 'unknown', outcome: 'method_not_found' };
    expect(delta(before, after, 'nodecli_rpc_requests_total', unknown)).toBe(500);
    const added = (name: string) =>
      seriesOf(after, name).filter((series) => !seriesOf(before, name).includes(series));
    expect(added('nodecli_rpc_requests_total').length).toBeLessThanOrEqual(1);
    expect(added('nodecli_rpc_request_duration_seconds_count').length).toBeLessThanOrEqual(1);
    expect(
      after
        .get('nodecli_rpc_requests_total')!
        .samples.every((s) => !s.labels.method.startsWith('made_up')),
    ).toBe(true);
  });

  it('counts admissions, blocks and transactions exactly', async () => {
    const wallet = devWallet(3);
    await stopMining(daemon);
    try {
      const before = await scrape(metricsUrl);
      const nonce = Number(
        BigInt(
          await daemon.rpc.call<string>('eth_getTransactionCount', [wallet.address, 'pending']),
        ),
      );
      const raws = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          signDynamicFeeTx(wallet, { to: devWallet(4).address, value: 1n, nonce: nonce + i }),
        ),
      );
      const hashes: string[] = [];
      for (const raw of raws)
        hashes.push(await daemon.rpc.call<string>('eth_sendRawTransaction', [raw]));
      await expect(daemon.rpc.call('eth_sendRawTransaction', [raws[0]])).rejects.toThrow(
        /already known/,
      );
      const held = await scrape(metricsUrl);
      const admissions = 'nodecli_txpool_admissions_total';
      expect(delta(before, held, admissions, { outcome: 'accepted' })).toBe(5);
      expect(delta(before, held, admissions, { outcome: 'already_known' })).toBe(1);
      expect(delta(before, held, admissions)).toBe(6);
      expect(delta(before, held, 'nodecli_txpool_transactions', { state: 'pending' })).toBe(5);
      expect(delta(before, held, 'nodecli_block_transactions_count')).toBe(0);
      expect(delta(before, held, 'nodecli_head_block_number')).toBe(0);

      await daemon.authedRpc.call('evm_mine');
      await waitForReceipt(daemon.rpc, hashes[4]);
      const after = await scrape(metricsUrl);
      const blocks = delta(held, after, 'nodecli_block_transactions_count');
      expect(blocks).toBe(1);
      expect(delta(held, after, 'nodecli_head_block_number')).toBe(blocks);
      expect(delta(held, after, 'nodecli_block_production_seconds_count')).toBe(blocks);
      expect(delta(held, after, 'nodecli_database_commit_seconds_count')).toBe(blocks);
      expect(delta(held, after, 'nodecli_block_transactions_sum')).toBe(5);
      expect(value(after, 'nodecli_txpool_transactions', { state: 'pending' })).toBe(0);
    } finally {
      await resumeMining(daemon);
    }
  });

  it('shows WebSocket and consensus-socket connections and subscriptions', async () => {
    const gauge = (scraped: Scrape, name: string, socket: string) =>
      value(scraped, name, { socket });
    const settles = (expected: Record<string, number>) =>
      waitFor(
        async () => {
          const scraped = await scrape(metricsUrl);
          return Object.entries(expected).every(([key, count]) => {
            const [name, socket] = key.split(' ');
            return gauge(scraped, name, socket) === count;
          });
        },
        10_000,
        JSON.stringify(expected),
      );
    const ws = await WsRpcClient.connect(daemon.endpoints.ws);
    const consensus = await ConsensusWsClient.connect(daemon.endpoints.consensusWs as string);
    try {
      await ws.call('eth_subscribe', ['newHeads']);
      await ws.call('eth_subscribe', ['newPendingTransactions']);
      await consensus.subscribe("tm.event = 'NewBlock'", () => undefined);
      await settles({
        'nodecli_ws_connections json_rpc': 1,
        'nodecli_ws_subscriptions json_rpc': 2,
        'nodecli_ws_connections consensus': 1,
        'nodecli_ws_subscriptions consensus': 1,
      });
    } finally {
      await ws.close();
      await consensus.close();
    }
    await settles({
      'nodecli_ws_connections json_rpc': 0,
      'nodecli_ws_subscriptions json_rpc': 0,
      'nodecli_ws_connections consensus': 0,
      'nodecli_ws_subscriptions consensus': 0,
    });
  });

  it('counts REST requests by route pattern, never by raw path', async () => {
    const before = await scrape(metricsUrl);
    const rest = daemon.endpoints.rest as string;
    for (let i = 0; i < 3; i++) await (await fetch(`${rest}/status/ping`)).text();
    await (await fetch(`${rest}/contracts/some-name-${Date.now()}`)).text();
    await (await fetch(`${rest}/no/such/route`)).text();
    const after = await scrape(metricsUrl);
    const requests = 'nodecli_rest_requests_total';
    const ping = { route: '/v1/api/status/ping', method: 'GET', status: '200' };
    expect(delta(before, after, requests, ping)).toBe(3);
    const contract = { route: '/v1/api/contracts/:contract', method: 'GET', status: '401' };
    expect(delta(before, after, requests, contract)).toBe(1);
    expect(delta(before, after, requests, { route: 'unmatched', status: '401' })).toBe(1);
    expect(delta(before, after, requests)).toBe(5);
  });
});

describe('call-thread metrics', () => {
  /** JUMPDEST PUSH1 0 JUMP: creation code that loops until its gas is spent. */
  const ENDLESS_LOOP = '0x5b600056';
  const UNENDING_CALL_GAS = 1_000_000_000;
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--metrics.enable',
      '--metrics.address',
      '127.0.0.1:0',
      '--json-rpc.evm-threads',
      '1',
      '--json-rpc.gas-cap',
      String(UNENDING_CALL_GAS),
      '--json-rpc.evm-timeout',
      '500ms',
    ]);
  });
  afterAll(() => daemon?.stop());

  it('counts a call aborted past --json-rpc.evm-timeout once; an idle call queue reads 0', async () => {
    const metricsUrl = daemon.endpoints.metrics as string;
    const before = await scrape(metricsUrl);
    expect(value(before, 'nodecli_call_queue_depth')).toBe(0);
    const unending = { data: ENDLESS_LOOP, gas: `0x${UNENDING_CALL_GAS.toString(16)}` };
    await expect(daemon.rpc.call('eth_call', [unending, 'latest'])).rejects.toThrow(
      /execution aborted \(timeout = 500ms\)/,
    );
    const after = await scrape(metricsUrl);
    expect(delta(before, after, 'nodecli_call_timeouts_total')).toBe(1);
    expect(
      delta(before, after, 'nodecli_rpc_requests_total', {
        method: 'eth_call',
        outcome: 'limit_exceeded',
      }),
    ).toBe(1);
  });
});
