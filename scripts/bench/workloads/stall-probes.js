// Workload (f): the stall probes of the security issue (#20, item 6), one after another against
// one daemon producing a block a second. While each probe runs, a client of its own asks
// eth_blockNumber every 20 ms (load/latency-sampler.js) and records how long each answer took;
// afterwards the gaps between the timestamps of the blocks made meanwhile are read.
// Target: every answer within 100 ms and no gap above one block time plus one second.
import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { HttpRpcClient } from '../../../dist/client/http-rpc-client.js';
import { connectRpc } from '../rpc.js';
import { percentile, sampleLatency } from '../load/latency-sampler.js';
import { freePort } from '../processes/free-port.js';
import { daemonStartArgs, freshDataDir, runCli } from '../processes/node-cli.js';

/** How long the unread-reply probes keep their clients from reading. */
const HOLD_MS = 3_000;
/** Runtime code that returns as many (zero) bytes as its first calldata word says. */
const RETURNER_INITCODE = '0x656000356000f36000526006601af3';

async function blockGaps(rpc, from, to) {
  const stamps = [];
  for (let height = Math.max(from, 1); height <= to; height += 1) {
    const block = await rpc.call('eth_getBlockByNumber', [`0x${height.toString(16)}`, false]);
    stamps.push(Number(block.timestamp));
  }
  return stamps.slice(1).map((stamp, i) => stamp - stamps[i]);
}

function openSocket(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

function openWs(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { maxPayload: 256 * 2 ** 20 });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const hold = () => new Promise((resolve) => setTimeout(resolve, HOLD_MS));

/** One request as HTTP/1.1 bytes. */
function httpPost(url, body, extraHeaders = '') {
  const { host, pathname } = new URL(url);
  return (
    `POST ${pathname} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n${body}`
  );
}

/** The probes, each `({endpoints, call}) => Promise<void>`; `call(id, n)` asks for n bytes. */
export const PROBES = {
  'WebSocket: 64 eth_calls answering 1 MiB, replies unread for 3 s': async ({
    endpoints,
    call,
  }) => {
    const ws = await openWs(endpoints.ws);
    let replies = 0;
    const all = new Promise((resolve) => ws.on('message', () => ++replies === 64 && resolve()));
    ws.pause();
    for (let id = 0; id < 64; id += 1) ws.send(call(id, 2 ** 20));
    await hold();
    ws.resume();
    await all;
    ws.close();
  },
  'HTTP: 64 pipelined eth_calls answering 1 MiB on each of two connections, unread for 3 s':
    async ({ endpoints, call }) => {
      const sockets = await Promise.all([openSocket(endpoints.http), openSocket(endpoints.http)]);
      for (const socket of sockets) {
        socket.pause();
        for (let id = 0; id < 64; id += 1)
          socket.write(httpPost(endpoints.http, call(id, 2 ** 20)));
      }
      await hold();
      for (const socket of sockets) socket.destroy();
    },
  'HTTP: three bodies of JSON nested 2.6 M deep': async ({ endpoints }) => {
    const body = `${'['.repeat(2_600_000)}${']'.repeat(2_600_000)}`;
    for (let i = 0; i < 3; i += 1) {
      const socket = await openSocket(endpoints.http);
      await new Promise((resolve) => {
        socket.once('data', resolve);
        socket.once('close', resolve);
        socket.write(httpPost(endpoints.http, body, 'Connection: close\r\n'));
      });
      socket.destroy();
    }
  },
  'WebSocket: a 16 MB message nested 8 M deep': async ({ endpoints }) => {
    const ws = await openWs(endpoints.ws);
    await new Promise((resolve) => {
      ws.once('message', resolve);
      ws.once('close', resolve);
      ws.send(`${'['.repeat(8_000_000)}${']'.repeat(8_000_000)}`);
    });
    ws.close();
  },
  'HTTP: three 5 MB bodies sent in one-byte chunks for 3 s': async ({ endpoints }) => {
    const { host, pathname } = new URL(endpoints.http);
    const sockets = await Promise.all([0, 1, 2].map(() => openSocket(endpoints.http)));
    for (const socket of sockets) {
      socket.on('error', () => undefined);
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
          'Transfer-Encoding: chunked\r\n\r\n',
      );
    }
    const until = performance.now() + HOLD_MS;
    const chunk = '1\r\n['.concat('\r\n').repeat(4096);
    while (performance.now() < until) {
      for (const socket of sockets) if (!socket.destroyed) socket.write(chunk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const socket of sockets) socket.destroy();
  },
  'consensus WebSocket: 20 clients x 5 subscriptions of 450 KB queries': async ({ endpoints }) => {
    const query = Array.from({ length: 30_000 }, (_, i) => `k${i}.x EXISTS`).join(' AND ');
    const clients = await Promise.all(
      Array.from({ length: 20 }, () => openWs(endpoints.consensusWs)),
    );
    await Promise.all(
      clients.map(
        (ws, client) =>
          new Promise((resolve) => {
            let answers = 0;
            ws.on('message', () => ++answers === 5 && resolve());
            ws.once('close', resolve);
            for (let s = 0; s < 5; s += 1) {
              ws.send(
                JSON.stringify({
                  jsonrpc: '2.0',
                  id: s,
                  method: 'subscribe',
                  params: { query: `${query} AND c${client}s${s}.x EXISTS` },
                }),
              );
            }
          }),
      ),
    );
    for (const ws of clients) ws.close();
  },
  'WebSocket: 50 000 eth_subscribe newHeads on one connection': async ({ endpoints }) => {
    const ws = await openWs(endpoints.ws);
    let answers = 0;
    const all = new Promise((resolve) => ws.on('message', () => ++answers === 50_000 && resolve()));
    for (let id = 0; id < 50_000; id += 1) {
      ws.send(
        JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params: ['newHeads'] }),
      );
    }
    await Promise.race([all, new Promise((resolve) => ws.once('close', resolve))]);
    ws.close();
  },
};

/** Deploys the returner contract from dev account 0 (`authed` has the token); its address. */
async function deployReturner(rpc, authed) {
  const [from] = await rpc.call('eth_accounts', []);
  const hash = await authed.call('eth_sendTransaction', [
    { from, data: RETURNER_INITCODE, gas: '0x100000' },
  ]);
  for (;;) {
    const receipt = await rpc.call('eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt.contractAddress;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Runs every probe (or those whose name matches `only`) against a fresh daemon; resolves with
 * each probe's figures.
 */
export async function measureStallProbes(progress, only = /./) {
  const dataDir = freshDataDir();
  const port = await freePort();
  const { endpoints } = JSON.parse(await runCli(daemonStartArgs(dataDir, port, '1s')));
  const rpc = connectRpc(endpoints.http, 2);
  const authed = new HttpRpcClient(endpoints.http, {
    token: readFileSync(join(dataDir, 'auth.token'), 'utf8').trim(),
  });
  try {
    const returner = await deployReturner(rpc, authed);
    const call = (id, bytes) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'eth_call',
        params: [{ to: returner, data: `0x${bytes.toString(16).padStart(64, '0')}` }, 'latest'],
      });
    const results = [];
    for (const [name, probe] of Object.entries(PROBES)) {
      if (!only.test(name)) continue;
      progress(`stall probe: ${name}`);
      const from = Number(await rpc.call('eth_blockNumber', []));
      const stop = await sampleLatency(endpoints.http);
      const began = performance.now();
      await probe({ endpoints, call });
      const probeMs = performance.now() - began;
      const latencies = (await stop()).sort((a, b) => a - b);
      const to = Number(await rpc.call('eth_blockNumber', []));
      const gaps = await blockGaps(rpc, from, to);
      results.push({
        probe: name,
        probeMs: Math.round(probeMs),
        samples: latencies.length,
        p50Ms: Math.round(percentile(latencies, 0.5)),
        p99Ms: Math.round(percentile(latencies, 0.99)),
        maxMs: Math.round(latencies[latencies.length - 1] ?? 0),
        blocks: to - from,
        maxBlockGapS: gaps.length === 0 ? 0 : Math.max(...gaps),
      });
    }
    return { probes: results };
  } finally {
    await Promise.all([rpc.close(), authed.close()]);
    await runCli(['daemon', 'stop', '--datadir', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
