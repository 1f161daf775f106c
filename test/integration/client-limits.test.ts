/**
 * Limits on what one client can make the node hold or do, against the real daemon: polling
 * filters, eth_subscribe subscriptions, consensus query sizes, queued calls (with fair turns
 * between clients) and concurrent key derivations. Each limit is crossed and answers -32005
 * naming its flag, while other clients go on being served.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsensusWsClient, type ConsensusEvent } from '../../src/client/consensus-ws-client.js';
import { RpcResponseError } from '../../src/client/errors.js';
import { WsRpcClient } from '../../src/client/ws-rpc-client.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const LIMIT_EXCEEDED = -32005;
const execFileAsync = promisify(execFile);

/** JUMPDEST PUSH1 0 JUMP: creation code that loops until its gas is spent. */
const ENDLESS_LOOP = '0x5b600056';
/** Gas that keeps the loop busy for about half a second on a call thread (measured 0.58 s). */
const SLOW_CALL_GAS = 10_000_000;
/** Creation code that returns the word `n` at once: PUSH1 n PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const returnsWord = (n: number) => `0x60${n.toString(16).padStart(2, '0')}60005260206000f3`;

/** What a call was refused with, or undefined if it was answered. */
async function refusal(
  call: Promise<unknown>,
): Promise<{ code: number; text: string } | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    if (!(error instanceof RpcResponseError)) throw error;
    // The consensus socket puts the reason in `data`, as CometBFT does; JSON-RPC in `message`.
    const text = typeof error.data === 'string' ? error.data : error.message;
    return { code: error.code, text };
  }
}

/**
 * Sends `count` eth_subscribe newHeads at once over one WebSocket from a child process, and
 * reports how many were accepted, the refusals by code and message, and how many
 * notifications arrived once every subscription was answered.
 */
async function floodSubscriptions(
  url: string,
  count: number,
): Promise<{ accepted: number; refused: Record<string, number>; notified: number }> {
  const script = `
    import WebSocket from 'ws';
    const [url, count] = [process.argv[1], Number(process.argv[2])];
    const ws = new WebSocket(url);
    const subscriptions = new Set();
    const notified = new Set();
    const refused = {};
    let answered = 0;
    ws.on('open', () => {
      for (let id = 0; id < count; id++) {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params: ['newHeads'] }));
      }
    });
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.id === undefined) {
        if (answered === count) notified.add(message.params.subscription);
      } else {
        answered++;
        if (message.result !== undefined) subscriptions.add(message.result);
        else {
          const key = message.error.code + ' ' + message.error.message;
          refused[key] = (refused[key] ?? 0) + 1;
        }
      }
      if (answered === count && notified.size === subscriptions.size) {
        console.log(JSON.stringify({ accepted: subscriptions.size, refused, notified: notified.size }));
        ws.close();
      }
    });
  `;
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--input-type=module', '-e', script, url, String(count)],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout) as {
    accepted: number;
    refused: Record<string, number>;
    notified: number;
  };
}

describe('limits per client', () => {
  let daemon: TestDaemon;
  const sockets: Array<{ close(): Promise<void> }> = [];

  const wsClient = async (): Promise<WsRpcClient> => {
    const client = await WsRpcClient.connect(daemon.endpoints.ws);
    sockets.push(client);
    return client;
  };

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--block-time',
      '1s',
      '--json-rpc.evm-threads',
      '1',
      // The thread runs from the start, so the queue test below counts one call in its hands.
      '--json-rpc.evm-idle',
      '0',
      '--json-rpc.evm-queue',
      '4',
      '--json-rpc.evm-queue-per-client',
      '4',
      '--json-rpc.max-filters',
      '8',
      '--json-rpc.filters-per-client',
      '5',
      '--keystore.kdf-concurrency',
      '1',
      '--keystore.kdf-queue',
      '0',
    ]);
  });

  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await daemon.stop();
  });

  it('caps polling filters per client and node-wide, and serves other clients meanwhile', async () => {
    const overHttp = await Promise.all(
      Array.from({ length: 5 }, () => daemon.rpc.call<string>('eth_newBlockFilter')),
    );
    expect(await refusal(daemon.rpc.call('eth_newBlockFilter'))).toEqual({
      code: LIMIT_EXCEEDED,
      text: 'too many filters: this client holds 5, the limit per client (--json-rpc.filters-per-client); uninstall some or let them expire',
    });
    // A WebSocket connection is a client of its own, but the node as a whole holds 8 at most.
    const socket = await wsClient();
    for (let i = 0; i < 3; i++) await socket.call('eth_newPendingTransactionFilter');
    expect(await refusal(socket.call('eth_newFilter', [{}]))).toEqual({
      code: LIMIT_EXCEEDED,
      text: 'too many filters: the node holds 8, its limit (--json-rpc.max-filters); uninstall some or let them expire',
    });
    const other = await wsClient();
    expect(await other.call('eth_blockNumber')).toMatch(/^0x/);
    expect(await other.call('eth_getFilterChanges', [overHttp[0]])).toEqual(expect.any(Array));
    expect(await daemon.rpc.call('eth_uninstallFilter', [overHttp[0]])).toBe(true);
    expect(await socket.call('eth_newFilter', [{}])).toMatch(/^0x/);
    for (const id of overHttp.slice(1)) await daemon.rpc.call('eth_uninstallFilter', [id]);
  });

  it('stops 50 000 eth_subscribe on one connection at the limit while another client is answered', async () => {
    // The flood comes from a process of its own, so that this one measures only the daemon.
    const flood = floodSubscriptions(daemon.endpoints.ws, 50_000);
    let flooding = true;
    const done = flood.finally(() => (flooding = false));
    const latencies: number[] = [];
    while (flooding) {
      const sent = performance.now();
      await daemon.rpc.call('eth_blockNumber');
      latencies.push(performance.now() - sent);
    }
    const outcome = await done;
    expect(outcome).toEqual({
      accepted: 256,
      refused: {
        [`${LIMIT_EXCEEDED} too many subscriptions: this connection holds 256, the limit per connection (--json-rpc.ws-max-subscriptions)`]:
          50_000 - 256,
      },
      // The connection at its limit still gets a notification per subscription.
      notified: 256,
    });
    expect(latencies.length).toBeGreaterThan(1);
    // Generous for a loaded 2-core machine; the measurements are in docs/security.md.
    expect(Math.max(...latencies)).toBeLessThan(2_000);
  });

  it("takes turns between callers' eth_calls and bounds the queue per client and node-wide", async () => {
    const [slow, quick, late] = await Promise.all([wsClient(), wsClient(), wsClient()]);
    await Promise.all([slow, quick, late].map((client) => client.call('eth_chainId')));
    const finished: string[] = [];
    const slowCalls = Array.from({ length: 5 }, (_, i) =>
      refusal(
        slow.call('eth_call', [
          { data: ENDLESS_LOOP, gas: `0x${(SLOW_CALL_GAS + i).toString(16)}` },
          'latest',
        ]),
      ).then((outcome) => {
        if (outcome?.code !== LIMIT_EXCEEDED) finished.push('slow');
        return outcome;
      }),
    );
    // The client's fifth call is over its bound of 4 and is refused at once.
    const slowRefused = await Promise.race(slowCalls.map((call) => call.then((o) => o ?? null)));
    expect(slowRefused).toEqual({
      code: LIMIT_EXCEEDED,
      text: 'too many calls in flight: this client has 4 eth_call/eth_estimateGas waiting or running, the limit per client (--json-rpc.evm-queue-per-client)',
    });
    // The thread runs one slow call and three wait. The quick call joins them, but ahead of
    // them in turn; the queue is then full for the late one.
    const quickCall = quick
      .call<string>('eth_call', [{ data: returnsWord(1) }, 'latest'])
      .then((word) => {
        finished.push('quick');
        return word;
      });
    expect(await refusal(late.call('eth_call', [{ data: returnsWord(2) }, 'latest']))).toEqual({
      code: LIMIT_EXCEEDED,
      text: "too many calls queued: 4 eth_call/eth_estimateGas wait for a call thread, the node's limit (--json-rpc.evm-queue)",
    });
    // Cheap requests of other clients do not wait for calls at all.
    expect(await daemon.rpc.call('eth_blockNumber')).toMatch(/^0x/);
    expect(finished.filter((name) => name === 'slow').length).toBeLessThanOrEqual(1);
    expect(BigInt(await quickCall)).toBe(1n);
    const outcomes = await Promise.all(slowCalls);
    // The four that ran spent their gas in the loop.
    expect(outcomes.filter((outcome) => outcome?.code === LIMIT_EXCEEDED)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome?.text === 'out of gas')).toHaveLength(4);
    // The quick call waited behind at most the slow call running, not behind the slow client's
    // queue.
    expect(finished.indexOf('quick')).toBeLessThanOrEqual(1);
    expect(finished).toHaveLength(5);
  });

  it('runs one key derivation at a time and refuses the next while the queue is full', async () => {
    const accounts = Array.from({ length: 2 }, () =>
      refusal(daemon.authedRpc.call('personal_newAccount', ['correct horse'])),
    );
    const answered: string[] = [];
    const blockNumber = daemon.rpc.call('eth_blockNumber').then(() => answered.push('block'));
    const outcomes = await Promise.all(
      accounts.map((account) => account.then((outcome) => (answered.push('account'), outcome))),
    );
    await blockNumber;
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== undefined)).toEqual([
      {
        code: LIMIT_EXCEEDED,
        text: 'too many key derivations: 1 running and 0 waiting, the limits (--keystore.kdf-concurrency, --keystore.kdf-queue); try again shortly',
      },
    ]);
    // The refusal comes at once, and eth_blockNumber does not wait for the derivation.
    expect(answered.lastIndexOf('account')).toBe(2);
  });

  it('refuses 20 clients x 5 huge queries while blocks keep their schedule', async () => {
    const url = daemon.endpoints.consensusWs!;
    const watcher = await ConsensusWsClient.connect(url);
    const headers: Array<{ at: number; height: number; time: number }> = [];
    await watcher.subscribe("tm.event='NewBlockHeader'", (event: ConsensusEvent) => {
      const header = (event.value as { header: { height: string; time: string } }).header;
      headers.push({
        at: performance.now(),
        height: Number(header.height),
        time: Date.parse(header.time),
      });
    });
    // About 450 KB and 30 000 conditions, under the socket's 1 MB message bound; built once,
    // so that this process stays free to watch the blocks.
    const hugeQuery = Array.from({ length: 30_000 }, (_, i) => `k${i}.x EXISTS`).join(' AND ');
    const probes = await Promise.all(
      Array.from({ length: 20 }, () => ConsensusWsClient.connect(url)),
    );
    try {
      const before = headers.length;
      const outcomes = await Promise.all(
        probes.flatMap((probe, client) =>
          Array.from({ length: 5 }, (_, subscription) =>
            refusal(
              probe.subscribe(
                `${hugeQuery} AND c${client}s${subscription}.x EXISTS`,
                () => undefined,
              ),
            ),
          ),
        ),
      );
      expect(outcomes).toHaveLength(100);
      for (const outcome of outcomes) {
        expect(outcome).toEqual({
          code: LIMIT_EXCEEDED,
          text: 'maximum query length exceeded: more than 512 bytes (--rpc.max-query-length)',
        });
      }
      const manyConditions = Array.from({ length: 17 }, (_, i) => `k${i}.x EXISTS`).join(' AND ');
      expect(await refusal(probes[0].subscribe(manyConditions, () => undefined))).toEqual({
        code: LIMIT_EXCEEDED,
        text: 'too many conditions in query: 17, the limit is 16 (--rpc.max-query-conditions)',
      });
      await waitFor(() => headers.length >= before + 3, 15_000, 'three more blocks');
    } finally {
      await Promise.all([watcher, ...probes].map((client) => client.close()));
    }
    for (let i = 1; i < headers.length; i++) {
      expect(headers[i].height).toBe(headers[i - 1].height + 1);
      // One block per second: the chain's timestamps (whole seconds) and the arrival of each
      // header, with a wide margin for a loaded machine.
      expect(headers[i].time - headers[i - 1].time).toBeLessThanOrEqual(2_000);
      expect(headers[i].at - headers[i - 1].at).toBeLessThan(3_000);
    }
  });
});
