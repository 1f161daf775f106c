/**
 * Security issue #20 (items 3, 4 and 6): no client can make a listener hold unbounded memory
 * or stall the process. Each probe runs against a real daemon producing a block a second;
 * meanwhile another connection asks for eth_blockNumber and the daemon's RSS is sampled. After
 * it, the timestamps of the blocks produced across the probe must keep their schedule.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { waitFor } from '../helpers/processes.js';
import { RawConnection, post, trickle } from '../helpers/raw-http.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { daemonLogText } from '../helpers/daemon-log.js';

const MAX_CONNECTIONS = 16;
const CONSENSUS_MAX_CONNECTIONS = 8;
const READ_TIMEOUT_S = 3;
/** Consecutive blocks at --block-time 1s may lie this far apart (one block time of margin, and one for load). */
const MAX_BLOCK_GAP_S = 3;

/** Runtime code that returns as many (zero) bytes as its first calldata word says. */
const RETURNER_INITCODE = '0x656000356000f36000526006601af3';

interface ProbeReport<T> {
  result: T;
  /** Milliseconds eth_blockNumber took on another connection once the probe had begun. */
  blockNumberMs: number;
  /** Whether that answer came while the probe was still running. */
  answeredDuringProbe: boolean;
  /** Highest RSS during the probe above the RSS before it, in MB. */
  rssGrowthMb: number;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

function consensusHttp(daemon: TestDaemon): string {
  return (daemon.endpoints.consensusWs as string)
    .replace(/^ws:/, 'http:')
    .replace(/\/websocket$/, '');
}

/** One JSON-RPC call on a connection of its own. */
async function rpc(url: string, method: string, params: unknown[] = [], token?: string) {
  const connection = await RawConnection.open(url);
  const auth = token === undefined ? '' : `Authorization: Bearer ${token}\r\n`;
  connection.write(
    post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), `${auth}Connection: close\r\n`),
  );
  const [answer] = await connection.responses(1);
  connection.end();
  return JSON.parse(answer.body) as { result?: unknown; error?: { code: number; message: string } };
}

async function blockNumber(daemon: TestDaemon): Promise<number> {
  return Number((await rpc(daemon.endpoints.http, 'eth_blockNumber')).result);
}

async function blockTimestamp(daemon: TestDaemon, height: number): Promise<number> {
  const { result } = await rpc(daemon.endpoints.http, 'eth_getBlockByNumber', [
    `0x${height.toString(16)}`,
    false,
  ]);
  return Number((result as { timestamp: string }).timestamp);
}

/** Waits for the block after `height` and checks the gaps between the blocks since `from`. */
async function expectBlocksOnSchedule(daemon: TestDaemon, from: number): Promise<void> {
  let head = from;
  await waitFor(async () => (head = await blockNumber(daemon)) >= from + 2, 15_000, 'blocks');
  const stamps: number[] = [];
  for (let height = from; height <= head; height++)
    stamps.push(await blockTimestamp(daemon, height));
  const gaps = stamps.slice(1).map((stamp, i) => stamp - stamps[i]);
  expect(Math.max(...gaps)).toBeLessThanOrEqual(MAX_BLOCK_GAP_S);
}

/** Runs `probe` while measuring what the issue asks: latency of others, RSS, block schedule. */
async function underProbe<T>(daemon: TestDaemon, probe: () => Promise<T>): Promise<ProbeReport<T>> {
  const before = rssMb(daemon.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(daemon.pid))), 50);
  // The genesis block's timestamp is fixed, not produced on schedule.
  const startBlock = Math.max(await blockNumber(daemon), 1);
  let probing = true;
  const running = probe().finally(() => (probing = false));
  const started = Date.now();
  await blockNumber(daemon);
  const blockNumberMs = Date.now() - started;
  const answeredDuringProbe = probing;
  const result = await running;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(daemon.pid));
  await expectBlocksOnSchedule(daemon, startBlock);
  const report = { result, blockNumberMs, answeredDuringProbe, rssGrowthMb: peak - before };
  process.stdout.write(
    `probe: eth_blockNumber ${blockNumberMs} ms (during probe: ${answeredDuringProbe}), RSS +${report.rssGrowthMb.toFixed(0)} MB\n`,
  );
  return report;
}

function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads `count` responses off a socket, keeping only their status codes. */
function readStatuses(socket: Socket, count: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const statuses: number[] = [];
    let head = '';
    let bodyLeft = 0;
    socket.on('data', (chunk: Buffer) => {
      let offset = 0;
      while (offset < chunk.length) {
        if (bodyLeft > 0) {
          const taken = Math.min(bodyLeft, chunk.length - offset);
          bodyLeft -= taken;
          offset += taken;
          continue;
        }
        const end = chunk.indexOf('\r\n\r\n', offset);
        if (end < 0) {
          head += chunk.toString('latin1', offset);
          return;
        }
        head += chunk.toString('latin1', offset, end);
        statuses.push(Number(head.slice(9, 12)));
        bodyLeft = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        head = '';
        offset = end + 4;
      }
      if (statuses.length >= count && bodyLeft === 0) resolve(statuses);
    });
    socket.once('close', () => reject(new Error(`closed after ${statuses.length} responses`)));
  });
}

function openWs(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function nextMessage(ws: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    ws.once('message', (data) => resolve(data.toString()));
    ws.once('close', (code, reason) => reject(new Error(`closed ${code} ${reason.toString()}`)));
  });
}

function daemonLog(daemon: TestDaemon): string {
  return daemonLogText(daemon.dataDir);
}

describe('transport limits of a real daemon', () => {
  let daemon: TestDaemon;
  let returner: string;

  /** eth_call data asking the returner contract for `bytes` bytes. */
  const returnCall = (id: number, bytes: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'eth_call',
      params: [{ to: returner, data: `0x${bytes.toString(16).padStart(64, '0')}` }, 'latest'],
    });

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--block-time',
      '1s',
      '--json-rpc.max-connections',
      String(MAX_CONNECTIONS),
      '--json-rpc.read-timeout',
      `${READ_TIMEOUT_S}s`,
      '--rpc.max-open-connections',
      String(CONSENSUS_MAX_CONNECTIONS),
      '--rpc.read-timeout',
      `${READ_TIMEOUT_S}s`,
    ]);
    const [from] = (await rpc(daemon.endpoints.http, 'eth_accounts')).result as string[];
    const sent = await rpc(
      daemon.endpoints.http,
      'eth_sendTransaction',
      [{ from, data: RETURNER_INITCODE, gas: '0x100000' }],
      daemon.token,
    );
    let receipt: { contractAddress: string } | undefined;
    await waitFor(
      async () => {
        const answer = await rpc(daemon.endpoints.http, 'eth_getTransactionReceipt', [sent.result]);
        receipt = answer.result as typeof receipt;
        return receipt !== null && receipt !== undefined;
      },
      15_000,
      'the contract deployment',
    );
    returner = (receipt as { contractAddress: string }).contractAddress;
  });
  afterAll(() => daemon?.stop());

  it('refuses JSON-RPC HTTP connections past the cap with 503, logs once, and serves the others', async () => {
    const open = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS }, () => RawConnection.open(daemon.endpoints.http)),
    );
    // An answer on each proves the server counts them all.
    for (const [i, connection] of open.entries()) {
      connection.write(post(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'net_version' })));
      expect((await connection.responses(1))[0].status).toBe(200);
    }
    for (let refused = 0; refused < 2; refused++) {
      const extra = await RawConnection.open(daemon.endpoints.http);
      const [answer] = await extra.responses(1);
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body).error).toEqual({
        code: -32005,
        message: `too many connections: the limit is ${MAX_CONNECTIONS} (--json-rpc.max-connections)`,
      });
      expect(await extra.closedByServer()).toBe(true);
    }
    open[0].write(post(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'net_version' })));
    expect((await open[0].responses(2))[1].status).toBe(200);
    for (const connection of open) connection.end();
    await waitFor(async () => (await blockNumber(daemon)) > 0, 10_000, 'a connection again');
    const warnings = daemonLog(daemon).match(/JSON-RPC HTTP connection refused/g) ?? [];
    expect(warnings).toHaveLength(1);
  });

  it('closes WebSocket and consensus connections past their caps, and serves the others', async () => {
    const sockets = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS }, () => openWs(daemon.endpoints.ws)),
    );
    await expect(openWs(daemon.endpoints.ws)).rejects.toThrow();
    sockets[0].send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'net_version' }));
    expect(JSON.parse(await nextMessage(sockets[0])).result).toBe('9000');
    for (const socket of sockets) socket.close();

    const consensus = await Promise.all(
      Array.from({ length: CONSENSUS_MAX_CONNECTIONS }, () =>
        RawConnection.open(consensusHttp(daemon)),
      ),
    );
    for (const connection of consensus) {
      connection.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
      expect((await connection.responses(1))[0].status).toBe(200);
    }
    const extra = await RawConnection.open(consensusHttp(daemon));
    extra.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await extra.responses(1)).toEqual([]);
    consensus[0].write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect((await consensus[0].responses(2))[1].status).toBe(200);
    for (const connection of consensus) connection.end();
    expect(daemonLog(daemon)).toMatch(/consensus RPC connection refused: connection limit reached/);
  });

  it('holds back pipelined requests whose large answers are not read, on two connections', async () => {
    const pipelined = 48;
    const answerBytes = 1024 * 1024;
    const sockets = await Promise.all([1, 2].map(() => openSocket(daemon.endpoints.http)));
    const requests = Array.from({ length: pipelined }, (_, i) => post(returnCall(i, answerBytes)));
    // The sockets have no 'data' listener yet: nothing is read while the probe runs.
    for (const socket of sockets) socket.write(requests.join(''));
    const report = await underProbe(daemon, async () => {
      const from = await blockNumber(daemon);
      await waitFor(async () => (await blockNumber(daemon)) >= from + 3, 15_000, 'three blocks');
    });
    expect(report.answeredDuringProbe).toBe(true);
    // Unbounded, the two pipelines' answers were 2 x 48 x 2 MB of JSON.
    expect(report.rssGrowthMb).toBeLessThan(100);
    // Reading resumes the pipelines (the rest of them would only take time to read).
    const statuses = await Promise.all(sockets.map((socket) => readStatuses(socket, 8)));
    expect(statuses.flat().slice(0, 16)).toEqual(Array(16).fill(200));
    for (const socket of sockets) socket.destroy();
  });

  it('refuses JSON nested 2.6 M deep over HTTP before parsing it', async () => {
    const depth = 2_600_000;
    const report = await underProbe(daemon, async () => {
      const connection = await RawConnection.open(daemon.endpoints.http);
      connection.write(post('['.repeat(depth) + ']'.repeat(depth)));
      const [answer] = await connection.responses(1);
      connection.end();
      return answer;
    });
    expect(JSON.parse(report.result.body).error).toEqual({
      code: -32600,
      message: 'invalid request: JSON nesting depth exceeds 128 (--json-rpc.max-nesting)',
    });
    expect(report.blockNumberMs).toBeLessThan(1500);
    expect(report.rssGrowthMb).toBeLessThan(150);
  });

  it('refuses JSON nested 8 M deep over WebSocket before parsing it', async () => {
    const depth = 8_000_000;
    const ws = await openWs(daemon.endpoints.ws);
    const report = await underProbe(daemon, async () => {
      const reply = nextMessage(ws);
      ws.send('['.repeat(depth) + ']'.repeat(depth));
      return reply;
    });
    ws.close();
    expect(JSON.parse(report.result).error).toEqual({
      code: -32600,
      message: 'invalid request: JSON nesting depth exceeds 128 (--json-rpc.max-nesting)',
    });
    expect(report.blockNumberMs).toBeLessThan(1500);
    expect(report.rssGrowthMb).toBeLessThan(250);
  });

  it('collects bodies sent as one-byte chunks in bounded memory, three at once', async () => {
    const bodyBytes = 1_000_000;
    const prefix = '{"jsonrpc":"2.0","id":1,"method":"net_version","pad":"';
    const body = Buffer.from(prefix + 'x'.repeat(bodyBytes - prefix.length - 2) + '"}');
    const head = Buffer.from(
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const wire = Buffer.alloc(head.length + body.length * 6 + 5);
    head.copy(wire);
    let at = head.length;
    for (const byte of body) {
      at += wire.write('1\r\n', at, 'latin1');
      wire[at++] = byte;
      at += wire.write('\r\n', at, 'latin1');
    }
    wire.write('0\r\n\r\n', at, 'latin1');
    const report = await underProbe(daemon, () =>
      Promise.all(
        [1, 2, 3].map(async () => {
          const connection = await RawConnection.open(daemon.endpoints.http);
          connection.write(wire.toString('latin1'));
          const [answer] = await connection.responses(1);
          connection.end();
          return answer;
        }),
      ),
    );
    expect(report.result.map((answer) => JSON.parse(answer.body).result)).toEqual(
      Array(3).fill('9000'),
    );
    expect(report.answeredDuringProbe).toBe(true);
    expect(report.rssGrowthMb).toBeLessThan(150);
  });

  it('closes requests whose bodies or heads never end, on both listeners', async () => {
    const report = await underProbe(daemon, async () => {
      const slowBody = await RawConnection.open(daemon.endpoints.http);
      slowBody.write(post('x'.repeat(64)).slice(0, -60));
      const stopBody = trickle(slowBody, 'x', 200);
      const blankLines = await RawConnection.open(daemon.endpoints.http);
      blankLines.write(post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'net_version' })));
      await blankLines.responses(1);
      const stopLines = trickle(blankLines, '\r\n', 100);
      const consensusBody = await RawConnection.open(consensusHttp(daemon));
      consensusBody.write(
        'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{',
      );
      const stopConsensusBody = trickle(consensusBody, ' ', 200);
      const consensusLines = await RawConnection.open(consensusHttp(daemon));
      const stopConsensusLines = trickle(consensusLines, '\r\n', 100);
      const started = Date.now();
      const closed = await Promise.all(
        [slowBody, blankLines, consensusBody, consensusLines].map(async (connection) => {
          await connection.closedByServer();
          return Date.now() - started;
        }),
      );
      for (const stop of [stopBody, stopLines, stopConsensusBody, stopConsensusLines]) stop();
      return {
        closed,
        slowBody: await slowBody.responses(1),
        blankLines: (await blankLines.responses(2))[1],
        consensusBody: await consensusBody.responses(1),
      };
    });
    expect(report.answeredDuringProbe).toBe(true);
    // Each within the deadline plus the checks' granularity and load, far from for ever.
    for (const ms of report.result.closed) expect(ms).toBeLessThan(10_000);
    expect(report.result.slowBody[0].status).toBe(408);
    expect(JSON.parse(report.result.slowBody[0].body).error.message).toBe(
      `request not received within ${READ_TIMEOUT_S * 1000} ms (--json-rpc.read-timeout)`,
    );
    expect(report.result.blankLines.status).toBe(408);
    expect(report.result.consensusBody.map((answer) => answer.status)).toEqual([408]);
  });

  it('refuses a consensus body over the limit without reading it, and batches over the limit', async () => {
    const declared = await RawConnection.open(consensusHttp(daemon));
    declared.write(
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n',
    );
    const [refused] = await declared.responses(1);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body).error).toMatchObject({
      code: -32005,
      data: 'request body too large: the limit is 1000000 bytes (--rpc.max-body-bytes)',
    });
    expect(await declared.closedByServer()).toBe(true);

    // A chunked body is refused once its bytes pass the limit: the connection closes while
    // the client still has most of a 16 MB body to send.
    const chunked = await openSocket(consensusHttp(daemon));
    let closed = false;
    chunked.on('close', () => (closed = true));
    chunked.on('error', () => {});
    chunked.resume();
    chunked.write(
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const piece = Buffer.from(`10000\r\n${' '.repeat(0x10000)}\r\n`);
    let sent = 0;
    while (!closed && sent < 256) {
      if (!chunked.write(piece)) {
        await new Promise<void>((resolve) => {
          chunked.once('drain', resolve);
          chunked.once('close', resolve);
        });
      }
      sent++;
    }
    expect(sent).toBeLessThan(256);

    // Node's parser hands each chunk to JavaScript apart: one-byte chunks are refused early.
    const tiny = await RawConnection.open(consensusHttp(daemon));
    tiny.write(
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        '1\r\n \r\n'.repeat(5000),
    );
    const [pieces] = await tiny.responses(1);
    expect(pieces.status).toBe(413);
    expect(JSON.parse(pieces.body).error.data).toBe(
      'request body in more than 4096 chunks: send it in larger ones',
    );

    const batch = JSON.stringify(
      Array.from({ length: 1001 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'health' })),
    );
    const connection = await RawConnection.open(consensusHttp(daemon));
    connection.write(post(batch));
    const [answer] = await connection.responses(1);
    expect(JSON.parse(answer.body).error).toMatchObject({
      code: -32005,
      data: 'batch too large: 1001 calls exceed the limit of 1000 (--rpc.batch-request-limit)',
    });
    connection.end();
  });

  it('refuses deeply nested consensus requests over HTTP and WebSocket without logging errors', async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const connection = await RawConnection.open(consensusHttp(daemon));
    connection.write(post(deep));
    const [answer] = await connection.responses(1);
    connection.end();
    const expected = {
      code: -32600,
      message: 'Invalid Request',
      data: 'invalid request: JSON nesting depth exceeds 128 (--rpc.max-nesting)',
    };
    expect(JSON.parse(answer.body).error).toEqual(expected);
    const ws = await openWs(daemon.endpoints.consensusWs as string);
    const reply = nextMessage(ws);
    ws.send(deep);
    expect(JSON.parse(await reply).error).toEqual(expected);
    ws.close();
    expect(daemonLog(daemon)).not.toMatch(/"level":"error"|\bERROR\b/);
  });

  it('stops reading a WebSocket client that does not read its replies, and serves it when it does', async () => {
    const requests = 160;
    const ws = await openWs(daemon.endpoints.ws);
    const replies: number[] = [];
    let delivered: () => void = () => {};
    const all = new Promise<void>((resolve) => (delivered = resolve));
    ws.on('message', (data) => {
      replies.push((JSON.parse(data.toString()) as { id: number }).id);
      if (replies.length === requests) delivered();
    });
    ws.pause();
    for (let id = 0; id < requests; id++) ws.send(returnCall(id, 1024 * 1024));
    const report = await underProbe(daemon, async () => {
      const from = await blockNumber(daemon);
      await waitFor(async () => (await blockNumber(daemon)) >= from + 3, 15_000, 'three blocks');
    });
    expect(report.answeredDuringProbe).toBe(true);
    // Unbounded, the 160 replies would be 320 MB of JSON held for the client. Bounded, what
    // stays held is the 16 MiB bound and the replies running; the peak above it (70-80 MB
    // measured alone) is the garbage of making the first of them.
    expect(report.rssGrowthMb).toBeLessThan(150);
    ws.resume();
    await all;
    expect(replies.sort((a, b) => a - b)).toEqual(Array.from({ length: requests }, (_, id) => id));
    ws.close();
  });

  it('delivers a WebSocket reply larger than the backlog bound to a client that reads', async () => {
    const ws = await openWs(daemon.endpoints.ws);
    const reply = nextMessage(ws);
    // Three 3 MiB results: about 19 MB of JSON, above the 16 MiB bound on unsent bytes.
    ws.send(`[${[1, 2, 3].map((id) => returnCall(id, 3 * 1024 * 1024)).join(',')}]`);
    const answers = JSON.parse(await reply) as { id: number; result: string }[];
    expect(answers.map((answer) => [answer.id, answer.result.length])).toEqual(
      [1, 2, 3].map((id) => [id, 2 + 6 * 1024 * 1024]),
    );
    ws.close();
  });
});
