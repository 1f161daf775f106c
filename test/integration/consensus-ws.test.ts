/**
 * The consensus RPC end to end, in process: a real chain, mempool, event bus and consensus
 * engine (block time 0), with the server on 127.0.0.1:0, driven by @cosmjs/tendermint-rpc,
 * plain `ws` clients and fetch.
 *
 * A last block runs the same checks against a real daemon started through the CLI (needs
 * `npm run build`).
 *
 * cosmjs 0.39 is CommonJS that requires ESM-only @noble packages, which Node 20 loads but jest's
 * module runtime refuses; so the cosmjs clients run in a child `node` process and report what
 * they decoded as JSON lines.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Address } from '@ethereumjs/util';
import { bytesToHex } from '@ethereumjs/util';
import { WebSocket } from 'ws';
import { Chain } from '../../src/daemon/chain/chain.js';
import { ConsensusEngine } from '../../src/daemon/chain/consensus.js';
import { createChainCommon } from '../../src/daemon/chain/common.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { startConsensusRpcServer } from '../../src/daemon/consensus-rpc/server.js';
import type { ConsensusRpcServer } from '../../src/daemon/consensus-rpc/server.js';
import { secp256k1KeyPair } from '../../src/daemon/crypto/wasm-crypto.js';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import { createLogger } from '../../src/daemon/logger.js';
import type { Logger } from '../../src/daemon/logger.js';
import { DEFAULT_POOL_LIMITS, TxPool } from '../../src/daemon/txpool/txpool.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon } from '../helpers/test-daemon.js';
import type { TestDaemon } from '../helpers/test-daemon.js';
import { devAddress, devKey, signTx, tempDataDir } from '../unit/chain-fixtures.js';

const LOOPBACK = { host: '127.0.0.1', port: 0 };
const silent = createLogger('error', () => {});

interface RpcMessage {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data: string };
}

/** An event message of a subscription. */
interface EventMessage extends RpcMessage {
  result: {
    query: string;
    data: { type: string; value: { block?: { header: { height: string } } } };
    events: Record<string, string[]>;
  };
}

/** What the cosmjs scripts print, one JSON object a line. */
interface ScriptLine {
  kind?: string;
  height?: number;
  chainId?: string;
  tx?: string;
  code?: number;
  types?: string[];
  [field: string]: unknown;
}

const isEvent = (message: RpcMessage): message is EventMessage =>
  typeof message.result === 'object' && message.result !== null && 'query' in message.result;

/** Subscribes with cosmjs to NewBlockHeader and Tx events and prints what it decodes. */
const COSMJS_SUBSCRIBER = `
const { Comet38Client, WebsocketClient } = require('@cosmjs/tendermint-rpc');
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const print = (line) => process.stdout.write(JSON.stringify(line) + '\\n');
const client = Comet38Client.create(new WebsocketClient(process.argv[1]));
const fail = (error) => print({ kind: 'error', message: String(error) });
client.subscribeNewBlockHeader().addListener({
  next: (h) => print({ kind: 'header', height: h.height, chainId: h.chainId, time: h.time.toISOString() }),
  error: fail,
});
client.subscribeTx().addListener({
  next: (e) => print({ kind: 'tx', height: e.height, tx: hex(e.tx), code: e.result.code,
    types: e.result.events.map((ev) => ev.type) }),
  error: fail,
});
// Requests go out in order on one socket: once status answers, both subscriptions are in place.
client.status().then(() => print({ kind: 'ready' }), fail);
`;

/** Reads the HTTP routes with cosmjs's decoders and prints a summary. */
const COSMJS_ROUTES = `
const { Comet38Client } = require('@cosmjs/tendermint-rpc');
const hex = (bytes) => Buffer.from(bytes).toString('hex');
(async () => {
  const [url, hash, height] = process.argv.slice(1);
  const client = await Comet38Client.connect(url);
  const status = await client.status();
  const block = await client.block(Number(height));
  const results = await client.blockResults(Number(height));
  const tx = await client.tx({ hash: Buffer.from(hash, 'hex') });
  const search = await client.txSearch({ query: 'tx.height=' + height });
  const genesis = await client.genesis();
  const abci = await client.abciInfo();
  await client.health();
  process.stdout.write(JSON.stringify({
    network: status.nodeInfo.network, latest: status.syncInfo.latestBlockHeight,
    validator: hex(status.validatorInfo.address),
    blockHash: hex(block.blockId.hash), blockTxs: block.block.txs.map(hex),
    gasUsed: results.results.map((r) => r.gasUsed.toString()),
    txHeight: tx.height, searchHashes: search.txs.map((t) => hex(t.hash)),
    genesisChainId: genesis.chainId, abciHeight: abci.lastBlockHeight,
  }) + '\\n');
  client.disconnect();
})().catch((error) => { process.stderr.write(String(error.stack ?? error)); process.exit(1); });
`;

/** A `node` child running a CommonJS script; its stdout JSON lines are collected. */
class NodeScript {
  readonly lines: ScriptLine[] = [];
  readonly exited: Promise<number | null>;
  private stderr = '';
  private readonly child: ChildProcess;

  constructor(script: string, args: string[]) {
    this.child = spawn(process.execPath, ['-e', script, ...args], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop()!;
      for (const line of complete)
        if (line.trim() !== '') this.lines.push(JSON.parse(line) as ScriptLine);
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  async waitForLine(predicate: (line: ScriptLine) => boolean, what: string): Promise<void> {
    await waitFor(
      () => {
        if (this.lines.some((line) => line.kind === 'error')) {
          throw new Error(`cosmjs failed: ${JSON.stringify(this.lines)}`);
        }
        return this.lines.some(predicate);
      },
      20_000,
      `${what} (stderr: ${this.stderr})`,
    );
  }

  async stop(): Promise<void> {
    this.child.kill();
    await this.exited;
  }

  get errorOutput(): string {
    return this.stderr;
  }
}

/** A plain WebSocket client that keeps every message it receives. */
class Probe {
  readonly messages: RpcMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.messages.push(JSON.parse(data.toString()) as RpcMessage));
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  static async open(url: string): Promise<Probe> {
    const ws = new WebSocket(url);
    const probe = new Probe(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return probe;
  }

  /** Sends a request and waits for the reply with its id. */
  async call(id: string | number, method: string, params?: unknown): Promise<RpcMessage> {
    const seen = this.messages.length;
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    let reply: RpcMessage | undefined;
    await waitFor(
      () => {
        reply = this.messages.slice(seen).find((m) => m.id === id && !isEvent(m));
        return reply !== undefined;
      },
      10_000,
      `reply to ${method}`,
    );
    return reply!;
  }

  events(id: string | number): EventMessage[] {
    return this.messages.filter((m): m is EventMessage => m.id === id && isEvent(m));
  }

  get socket(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket;
  }
}

describe('consensus RPC (in-process node)', () => {
  let chain: Chain;
  let pool: TxPool;
  let bus: EventBus;
  let engine: ConsensusEngine;
  let cleanup: () => void;
  let server: ConsensusRpcServer;
  const nonces = new Map<number, bigint>();

  /** Signs and submits a transfer from dev account `from`; returns its hash. */
  async function send(from: number, to: Address, data?: Uint8Array): Promise<string> {
    const nonce = nonces.get(from) ?? 0n;
    nonces.set(from, nonce + 1n);
    const tx = signTx(chain.common, from, {
      nonce,
      to,
      value: 1000n + nonce,
      data,
      gasLimit: data === undefined ? 21_000n : 200_000n,
    });
    return (await pool.add(tx)).hashHex;
  }

  async function committed(hashes: string[]): Promise<void> {
    await waitFor(
      () =>
        hashes.every((hash) => chain.getReceipt(Buffer.from(hash.slice(2), 'hex')) !== undefined),
      20_000,
      'transactions to be committed',
    );
  }

  async function startServer(limits: {
    maxClients?: number;
    maxBacklogBytes?: number;
    logger?: Logger;
  }): Promise<ConsensusRpcServer> {
    return startConsensusRpcServer({
      address: LOOPBACK,
      chain,
      bus,
      validatorKey: { publicKey: secp256k1KeyPair(devKey(0)).subarray(32) },
      maxClients: limits.maxClients ?? 10,
      maxSubscriptionsPerClient: 5,
      maxBacklogBytes: limits.maxBacklogBytes ?? 16 * 1024 * 1024,
      browserPolicy: { vhosts: ['localhost'], corsOrigins: [], wsOrigins: [] },
      queryLimits: { maxLength: 512, maxConditions: 16 },
      limits: {
        maxBodyBytes: 1_000_000,
        maxNesting: 128,
        batchRequestLimit: 1000,
        batchResponseMaxSize: 25_000_000,
        maxConnections: 900,
        readTimeoutMs: 10_000,
      },
      production: () => ({ producing: true }),
      logger: limits.logger ?? silent,
    });
  }

  beforeAll(async () => {
    const tmp = tempDataDir();
    cleanup = tmp.cleanup;
    chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis() });
    pool = new TxPool({
      state: chain,
      chainId: chain.chainId,
      minGasPrice: chain.minGasPrice,
      limits: DEFAULT_POOL_LIMITS,
    });
    bus = new EventBus();
    engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 0 });
    engine.start();
    server = await startServer({});
  });

  afterAll(async () => {
    await server.close();
    await engine.stop();
    await chain.close();
    cleanup();
  });

  it('delivers NewBlockHeader and Tx events that @cosmjs/tendermint-rpc decodes', async () => {
    const subscriber = new NodeScript(COSMJS_SUBSCRIBER, [server.url.replace('http', 'ws')]);
    try {
      await subscriber.waitForLine((line) => line.kind === 'ready', 'cosmjs subscriptions');
      const sent = [await send(1, devAddress(5)), await send(2, devAddress(6))];
      await committed(sent);
      const located = sent.map((hash) => chain.getTransaction(Buffer.from(hash.slice(2), 'hex'))!);
      for (const { blockNumber } of located) {
        await subscriber.waitForLine(
          (line) => line.kind === 'header' && line.height === Number(blockNumber),
          `header ${blockNumber}`,
        );
      }
      await waitFor(() => subscriber.lines.filter((line) => line.kind === 'tx').length >= 2);
      const txs = subscriber.lines.filter((line) => line.kind === 'tx');
      expect(txs.map((t) => t.tx).sort()).toEqual(
        located.map((l) => bytesToHex(l.tx.serialize()).slice(2)).sort(),
      );
      expect(txs.map((t) => t.height).sort()).toEqual(
        located.map((l) => Number(l.blockNumber)).sort(),
      );
      expect(txs.every((t) => t.code === 0 && t.types?.includes('ethereum_tx') === true)).toBe(
        true,
      );
      const headers = subscriber.lines.filter((line) => line.kind === 'header');
      expect(headers.every((header) => header.chainId === '9000')).toBe(true);
    } finally {
      await subscriber.stop();
    }
  }, 60_000);

  it('delivers exactly the transactions sent to the queried recipient', async () => {
    const probe = await Probe.open(server.websocketUrl);
    const recipient = devAddress(7);
    const queryText = `tm.event='Tx' AND ethereum_tx.recipient='${recipient.toString().toLowerCase()}'`;
    expect((await probe.call('to-7', 'subscribe', { query: queryText })).result).toEqual({});
    const toRecipient = [await send(3, recipient), await send(4, recipient)];
    const elsewhere = [await send(3, devAddress(8)), await send(4, devAddress(9))];
    toRecipient.push(await send(1, recipient));
    await committed([...toRecipient, ...elsewhere]);
    // Messages arrive in order: once the last one to the recipient is in, all earlier are too.
    const last = await send(2, recipient);
    toRecipient.push(last);
    await waitFor(() =>
      probe.events('to-7').some((m) => m.result.events['ethereum_tx.ethereumTxHash'][0] === last),
    );
    const received = probe.events('to-7');
    expect(received.map((m) => m.result.events['ethereum_tx.ethereumTxHash'][0]).sort()).toEqual(
      [...toRecipient].sort(),
    );
    for (const message of received) {
      expect(message.result.query).toBe(queryText);
      expect(message.result.data.type).toBe('tendermint/event/Tx');
      expect(message.result.events['tm.event']).toEqual(['Tx']);
      expect(message.result.events['tx.hash'][0]).toMatch(/^[0-9A-F]{64}$/);
    }
    probe.ws.close();
  }, 60_000);

  it('answers subscription calls in CometBFT form and refuses bad ones clearly', async () => {
    const probe = await Probe.open(server.websocketUrl);
    const positional = await probe.call(42, 'subscribe', ["tm.event='NewBlockHeader'"]);
    expect(positional).toEqual({ jsonrpc: '2.0', id: 42, result: {} });

    const bad = await probe.call('bad', 'subscribe', { query: "tm.event=='Tx'" });
    expect(bad.error).toMatchObject({ code: -32602, message: 'Invalid params' });
    expect(bad.error!.data).toBe(
      'failed to parse query: query parse error at offset 8: expected an operator ' +
        '(=, <, <=, >, >=, CONTAINS, EXISTS), found "=="',
    );
    expect((await probe.call('none', 'subscribe', {})).error).toMatchObject({
      code: -32602,
      data: 'query is required',
    });
    expect(
      (await probe.call('dup', 'subscribe', ["tm.event = 'NewBlockHeader'"])).error,
    ).toMatchObject({
      data: 'already subscribed',
    });
    for (const [i, query] of [
      "tm.event='Tx'",
      'tx.height > 0',
      'ethereum_tx EXISTS',
      'a.b EXISTS',
    ].entries()) {
      expect((await probe.call(`fill-${i}`, 'subscribe', { query })).result).toEqual({});
    }
    expect((await probe.call('sixth', 'subscribe', { query: 'c.d EXISTS' })).error).toMatchObject({
      code: -32005,
      data: 'max_subscriptions_per_client 5 reached (--rpc.max-subscriptions-per-client)',
    });

    const hash = await send(5, devAddress(1));
    await committed([hash]);
    await waitFor(() => probe.events(42).length > 0, 10_000, 'NewBlockHeader with id 42');
    expect(probe.events(42)[0].result.data.type).toBe('tendermint/event/NewBlockHeader');

    expect((await probe.call('u1', 'unsubscribe', { query: "tm.event='Tx'" })).result).toEqual({});
    expect((await probe.call('u2', 'unsubscribe', { query: "tm.event='Tx'" })).error).toMatchObject(
      {
        data: 'subscription not found',
      },
    );
    expect((await probe.call('ua', 'unsubscribe_all')).result).toEqual({});
    expect((await probe.call('ua2', 'unsubscribe_all')).error?.data).toBe('subscription not found');
    expect((await probe.call('m', 'no_such_method')).error).toMatchObject({ code: -32601 });
    const status = await probe.call('s', 'status');
    expect((status.result as { node_info: { network: string } }).node_info.network).toBe('9000');
    probe.ws.close();
  }, 60_000);

  it('echoes request ids exactly, on replies and on the events of a subscription', async () => {
    const ws = new WebSocket(server.websocketUrl);
    const texts: string[] = [];
    ws.on('message', (data: Buffer) => texts.push(data.toString()));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const big = '18446744073709551615';
    ws.send(
      `{"jsonrpc":"2.0","id":${big},"method":"subscribe","params":{"query":"tm.event='NewBlockHeader'"}}`,
    );
    ws.send('{"jsonrpc":"2.0","id":1.50,"method":"no_such_method"}');
    await waitFor(() => texts.length >= 2, 10_000, 'two replies');
    expect(texts[0]).toBe(`{"jsonrpc":"2.0","id":${big},"result":{}}`);
    expect(texts[1]).toMatch(/^\{"jsonrpc":"2\.0","id":1\.50,"error":\{"code":-32601,/);
    await committed([await send(9, devAddress(3))]);
    const eventStart = `{"jsonrpc":"2.0","id":${big},"result":{"query":"tm.event='NewBlockHeader'"`;
    await waitFor(
      () => texts.some((text) => text.startsWith(eventStart)),
      10_000,
      'an event with the exact id',
    );
    ws.close();
  });

  it('serves the CometBFT routes over GET and POST that cosmjs decodes', async () => {
    const hash = await send(6, devAddress(2));
    await committed([hash]);
    const located = chain.getTransaction(Buffer.from(hash.slice(2), 'hex'))!;
    const height = Number(located.blockNumber);
    const routes = new NodeScript(COSMJS_ROUTES, [server.url, hash.slice(2), String(height)]);
    expect(await routes.exited).toBe(0);
    const decoded = routes.lines[0] as ScriptLine & { latest: number; abciHeight: number };
    expect(decoded).toMatchObject({
      network: '9000',
      validator: chain.coinbase.toString().slice(2),
      blockHash: bytesToHex(located.blockHash).slice(2),
      txHeight: height,
      genesisChainId: '9000',
    });
    expect(decoded.latest).toBeGreaterThanOrEqual(height);
    expect(decoded.abciHeight).toBeGreaterThanOrEqual(height);
    expect(decoded.blockTxs as string[]).toContain(bytesToHex(located.tx.serialize()).slice(2));
    expect((decoded.gasUsed as string[])[located.index]).toBe('21000');
    expect(decoded.searchHashes as string[]).toContain(hash.slice(2));

    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`);
      return { status: response.status, body: (await response.json()) as RpcMessage };
    };
    expect(await get('/health')).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: -1, result: { block_production: { producing: true } } },
    });
    const byUri = await get(`/tx?hash=${hash}`);
    expect((byUri.body.result as { hash: string }).hash).toBe(hash.slice(2).toUpperCase());
    const query = encodeURIComponent(
      `"tm.event='Tx' AND ethereum_tx.recipient='${devAddress(2).toString().toUpperCase().replace('0X', '0x')}'"`,
    );
    const search = await get(`/tx_search?query=${query}&per_page=1&order_by="desc"`);
    const searched = search.body.result as { txs: Array<{ hash: string }>; total_count: string };
    expect(searched.txs).toHaveLength(1);
    expect(searched.txs[0].hash).toBe(hash.slice(2).toUpperCase());
    expect(Number(searched.total_count)).toBeGreaterThanOrEqual(1);
    const tooHigh = await get('/block?height=999999');
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.error?.data).toMatch(
      /must be less than or equal to the current blockchain height/,
    );
    const badQuery = await get(`/tx_search?query=${encodeURIComponent('"a=="')}`);
    expect(badQuery.body.error).toMatchObject({ code: -32602, message: 'Invalid params' });
    expect(badQuery.body.error!.data).toMatch(/^failed to parse query/);
    expect((await get('/nope')).status).toBe(404);
    const missing = await get(`/tx?hash=0x${'00'.repeat(32)}`);
    expect(missing.body.error?.data).toBe(`tx (${'00'.repeat(32)}) not found`);

    const posted = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'p',
        method: 'block',
        params: { height: String(height) },
      }),
    });
    const postedBody = (await posted.json()) as RpcMessage;
    expect(postedBody.id).toBe('p');
    expect(
      (postedBody.result as { block: { header: { height: string } } }).block.header.height,
    ).toBe(String(height));
  }, 60_000);

  it('refuses clients past max_subscription_clients with a reason', async () => {
    const limited = await startServer({ maxClients: 2 });
    try {
      const first = await Probe.open(limited.websocketUrl);
      const second = await Probe.open(limited.websocketUrl);
      const third = await Probe.open(limited.websocketUrl);
      expect(await third.closed).toEqual({
        code: 1013,
        reason: 'max_subscription_clients 2 reached (--rpc.max-subscription-clients)',
      });
      first.ws.close();
      await first.closed;
      let accepted: Probe | undefined;
      await waitFor(async () => {
        const attempt = await Probe.open(limited.websocketUrl);
        const outcome = await Promise.race([
          attempt.call('s', 'health').then(() => 'served'),
          attempt.closed.then(() => 'refused'),
        ]);
        if (outcome === 'served') accepted = attempt;
        return outcome === 'served';
      });
      expect((await accepted!.call('h', 'health')).result).toEqual({
        block_production: { producing: true },
      });
      accepted!.ws.close();
      second.ws.close();
    } finally {
      await limited.close();
    }
  }, 60_000);

  it('drops a subscriber that stops reading without slowing block production', async () => {
    const backlog = 256 * 1024;
    let droppedAt: bigint | undefined;
    const guarded = await startServer({
      maxBacklogBytes: backlog,
      logger: createLogger('warn', (line) => {
        if (line.includes('slow consumer')) droppedAt ??= chain.head().number;
      }),
    });
    const payload = new Uint8Array(8 * 1024);
    /**
     * Produces blocks of 20 transactions with 8 KiB of calldata each, for `rounds` rounds or,
     * with `untilDropped`, until three blocks after the slow client was dropped (at most 40).
     */
    const produce = async (
      rounds: number,
      untilDropped = false,
    ): Promise<{ blocks: number; perSecond: number }> => {
      const startHeight = chain.head().number;
      const started = performance.now();
      for (let round = 0; round < (untilDropped ? 40 : rounds); round++) {
        const hashes: string[] = [];
        for (let i = 0; i < 20; i++) hashes.push(await send(7 + (i % 3), devAddress(0), payload));
        await committed(hashes);
        if (untilDropped && droppedAt !== undefined && chain.head().number >= droppedAt + 3n) break;
      }
      const blocks = Number(chain.head().number - startHeight);
      return { blocks, perSecond: blocks / ((performance.now() - started) / 1000) };
    };
    try {
      const healthy = await Probe.open(guarded.websocketUrl);
      await healthy.call('h', 'subscribe', { query: "tm.event='NewBlock'" });
      const without = await produce(10);

      const slow = await Probe.open(guarded.websocketUrl);
      for (const [i, query] of [
        "tm.event='NewBlock'",
        "tm.event='Tx'",
        "tm.event CONTAINS 'Block'",
        'tm.event EXISTS',
      ].entries()) {
        await slow.call(`slow-${i}`, 'subscribe', { query });
      }
      slow.socket.pause();
      const firstHeight = chain.head().number + 1n;
      const withSlow = await produce(10, true);
      const lastHeight = chain.head().number;
      console.log(
        `consensus socket: ${without.perSecond.toFixed(1)} blocks/s without a stalled subscriber ` +
          `(${without.blocks} blocks), ${withSlow.perSecond.toFixed(1)} blocks/s with one ` +
          `(${withSlow.blocks} blocks); it was dropped at height ${droppedAt}, ` +
          `${droppedAt === undefined ? '-' : droppedAt - firstHeight + 1n} blocks after it stopped reading`,
      );
      // Dropped while it was still not reading, and blocks kept coming after that.
      expect(droppedAt).toBeDefined();
      expect(lastHeight).toBeGreaterThan(droppedAt!);

      slow.socket.resume();
      const closed = await slow.closed;
      expect(closed.code).toBe(1008);
      expect(closed.reason).toBe(`slow consumer: more than ${backlog} bytes of events unread`);

      const expectedHeights: string[] = [];
      for (let h = firstHeight; h <= lastHeight; h++) expectedHeights.push(h.toString());
      await waitFor(() =>
        healthy
          .events('h')
          .some((m) => m.result.data.value.block?.header.height === lastHeight.toString()),
      );
      const seen = healthy.events('h').map((m) => m.result.data.value.block?.header.height);
      expect(seen).toEqual(expect.arrayContaining(expectedHeights));
      healthy.ws.close();
    } finally {
      await guarded.close();
    }
  }, 120_000);
});

describe('consensus RPC of a real daemon', () => {
  let daemon: TestDaemon;
  let consensusWs: string;
  const common = createChainCommon(9000n);

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
    consensusWs = daemon.endpoints.consensusWs!;
  }, 60_000);

  afterAll(async () => {
    await daemon.stop();
  }, 60_000);

  it('announces the consensus WebSocket and streams matching Tx events', async () => {
    expect(consensusWs).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/websocket$/);
    const probe = await Probe.open(consensusWs);
    const recipient = devAddress(4);
    const queryText = `tm.event='Tx' AND ethereum_tx.recipient='${recipient.toString().toUpperCase().replace('0X', '0x')}'`;
    expect((await probe.call('rcpt', 'subscribe', [queryText])).result).toEqual({});
    const raw = (from: number, nonce: bigint, to: Address) =>
      bytesToHex(signTx(common, from, { nonce, to, value: 1n }).serialize());
    const sent: string[] = [];
    for (const [from, nonce, to] of [
      [1, 0n, recipient],
      [2, 0n, devAddress(5)],
      [1, 1n, recipient],
    ] as const) {
      sent.push(await daemon.rpc.call<string>('eth_sendRawTransaction', [raw(from, nonce, to)]));
    }
    await waitFor(() => probe.events('rcpt').length >= 2, 20_000, 'Tx events from the daemon');
    // The transfer to another address was committed with (or before) the last one shown here.
    await waitFor(
      async () => (await daemon.rpc.call('eth_getTransactionReceipt', [sent[1]])) !== null,
    );
    expect(
      probe.events('rcpt').map((m) => m.result.events['ethereum_tx.ethereumTxHash'][0]),
    ).toEqual([sent[0], sent[2]]);

    const httpUrl = consensusWs.replace('ws://', 'http://').replace('/websocket', '');
    const status = (await (await fetch(`${httpUrl}/status`)).json()) as RpcMessage;
    const syncInfo = (status.result as { sync_info: { latest_block_height: string } }).sync_info;
    expect(Number(syncInfo.latest_block_height)).toBeGreaterThanOrEqual(1);
    const tx = (await (await fetch(`${httpUrl}/tx?hash=${sent[2]}`)).json()) as RpcMessage;
    expect((tx.result as { hash: string }).hash).toBe(sent[2].slice(2).toUpperCase());
    probe.ws.close();
  }, 60_000);
});
