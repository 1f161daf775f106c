/**
 * The pool journal under `kill -9` and under `daemon stop`, with several senders sending signed
 * raw transactions over HTTP the whole time and `--block-time 0`, so blocks are committed back to
 * back and kills land inside block commits as well as between them; one more sender has the node
 * sign (eth_sendTransaction). After every restart on the same data directory: every receipt
 * handed out before is unchanged, and every transaction whose hash was handed out is mined or
 * still in the pool. Nothing acknowledged is lost.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Wallet } from 'ethers';
import { devWallet, signDynamicFeeTx, type RawReceipt } from '../helpers/dev-chain.js';
import { runCliJson } from '../helpers/cli.js';
import { isAlive, waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { daemonLogText } from '../helpers/daemon-log.js';
import type { HttpRpcClient } from '../../src/client/http-rpc-client.js';

const FLAGS = ['--block-time', '0'];
const SENDERS = [1, 2, 3, 4, 5].map(devWallet);
/** A dev account the node signs for (unlocked in dev mode): its lane uses eth_sendTransaction. */
const NODE_SIGNED_SENDER = devWallet(6).address;
const RECIPIENT = devWallet(0).address;
const KILL_CYCLES = 10;
const STOP_CYCLES = 2;
/** A cycle ends after a random number of acknowledgements in this range, wherever the node is. */
const ACKS_PER_CYCLE = { min: 10, max: 80 };

/** What clients were told: acknowledged hashes and the receipts handed out for them. */
interface Ledger {
  acked: Set<string>;
  receipts: Map<string, RawReceipt>;
}

/** Sends and watches until `ended()`; errors after the end (the node went away) are expected. */
class Load {
  /** Set once the node is being taken away: errors are expected from then on. */
  private over = false;
  /** Set once the node is gone (or the test gave up): the lanes stop. */
  private finished = false;
  private ackedHere = 0;
  private readonly running: Promise<unknown>;

  constructor(
    private readonly daemon: TestDaemon,
    private readonly ledger: Ledger,
  ) {
    this.running = Promise.all([
      ...SENDERS.map((wallet) => this.send(wallet)),
      this.sendSignedByNode(),
      this.watch(),
    ]);
  }

  get acked(): number {
    return this.ackedHere;
  }

  /**
   * Takes the node away with `ending` while the load goes on, then ends the load; rethrows what
   * failed before. Answers that arrive meanwhile still count as acknowledgements.
   */
  async endWith(ending: () => Promise<void>): Promise<void> {
    this.over = true;
    try {
      await ending();
    } finally {
      this.finished = true;
    }
    await this.running;
  }

  /** Stops the lanes whatever happened, so that a failed cycle leaves nothing running. */
  async abandon(): Promise<void> {
    this.over = true;
    this.finished = true;
    await this.running;
  }

  private async send(wallet: Wallet): Promise<void> {
    const rpc = this.daemon.rpc;
    await this.untilOver(async () => {
      let nonce = Number(
        await rpc.call<string>('eth_getTransactionCount', [wallet.address, 'pending']),
      );
      while (!this.finished) {
        const raw = await signDynamicFeeTx(wallet, { nonce, to: RECIPIENT, value: 1n });
        // An answer is an acknowledgement, even one that arrives while the node is being stopped.
        this.ledger.acked.add(await rpc.call<string>('eth_sendRawTransaction', [raw]));
        this.ackedHere += 1;
        nonce += 1;
      }
    });
  }

  /** The node fills the nonce and signs; its answer acknowledges as eth_sendRawTransaction's does. */
  private async sendSignedByNode(): Promise<void> {
    const request = { from: NODE_SIGNED_SENDER, to: RECIPIENT, value: '0x1' };
    await this.untilOver(async () => {
      while (!this.finished) {
        this.ledger.acked.add(await this.daemon.rpc.call<string>('eth_sendTransaction', [request]));
        this.ackedHere += 1;
      }
    });
  }

  /** Collects the receipts of acknowledged transactions as they are mined. */
  private async watch(): Promise<void> {
    const rpc = this.daemon.rpc;
    await this.untilOver(async () => {
      while (!this.finished) {
        const waiting = [...this.ledger.acked].filter((hash) => !this.ledger.receipts.has(hash));
        for (const hash of waiting.slice(0, 50)) {
          const receipt = await rpc.call<RawReceipt | null>('eth_getTransactionReceipt', [hash]);
          if (receipt !== null) this.ledger.receipts.set(hash, receipt);
        }
        if (waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    });
  }

  private async untilOver(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!this.over) throw error;
    }
  }
}

/** One JSON-RPC batch per 500 calls of `method`, one call per hash; results in `hashes` order. */
async function callForEach<T>(rpc: HttpRpcClient, method: string, hashes: string[]): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < hashes.length; start += 500) {
    const calls = hashes
      .slice(start, start + 500)
      .map((hash, id) => ({ jsonrpc: '2.0', id, method, params: [hash] }));
    const answer = await rpc.post(JSON.stringify(calls));
    const replies = answer.body as Array<{ id: number; result?: T; error?: unknown }>;
    for (const reply of [...replies].sort((a, b) => a.id - b.id)) {
      if (reply.error !== undefined) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
      results.push(reply.result as T);
    }
  }
  return results;
}

/** Every receipt handed out is unchanged; every acknowledged hash is mined or pooled. */
async function expectNothingLost(daemon: TestDaemon, ledger: Ledger): Promise<void> {
  const acked = [...ledger.acked];
  const receipts = await callForEach<RawReceipt | null>(
    daemon.rpc,
    'eth_getTransactionReceipt',
    acked,
  );
  const changed = acked.filter((hash, index) => {
    const before = ledger.receipts.get(hash);
    const after = receipts[index];
    if (before === undefined) return false;
    return (
      after === null ||
      after.blockHash !== before.blockHash ||
      after.status !== before.status ||
      after.gasUsed !== before.gasUsed ||
      JSON.stringify(after) !== JSON.stringify(before)
    );
  });
  const unmined = acked.filter((_, index) => receipts[index] === null);
  const found = await callForEach<unknown>(daemon.rpc, 'eth_getTransactionByHash', unmined);
  const lost = unmined.filter((_, index) => found[index] === null);
  expect({ changed, lost }).toEqual({ changed: [], lost: [] });
}

function randomAckCount(): number {
  return ACKS_PER_CYCLE.min + Math.floor(Math.random() * (ACKS_PER_CYCLE.max - ACKS_PER_CYCLE.min));
}

describe('pool journal across kill -9 and daemon stop, under load', () => {
  const dataDir = makeDataDir();
  let daemon: TestDaemon | undefined;
  afterAll(async () => {
    if (daemon !== undefined && isAlive(daemon.pid)) await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no acknowledged transaction and changes no receipt', async () => {
    const ledger: Ledger = { acked: new Set(), receipts: new Map() };
    const cycles = [
      ...Array.from({ length: KILL_CYCLES }, () => 'kill' as const),
      ...Array.from({ length: STOP_CYCLES }, () => 'stop' as const),
    ];
    for (const ending of cycles) {
      const current = await startTestDaemon(FLAGS, dataDir);
      daemon = current;
      await expectNothingLost(current, ledger);
      const load = new Load(current, ledger);
      try {
        const acks = randomAckCount();
        await waitFor(() => load.acked >= acks, 30_000, `${acks} acknowledgements`);
        await load.endWith(async () => {
          if (ending === 'kill') {
            process.kill(current.pid, 'SIGKILL');
            await waitFor(() => !isAlive(current.pid), 10_000, 'the killed daemon to exit');
          } else {
            const stopped = await runCliJson<{ how: string }>([
              'daemon',
              'stop',
              '--datadir',
              dataDir,
            ]);
            expect(stopped.how).toBe('graceful');
          }
        });
      } finally {
        await load.abandon();
        await Promise.all([current.rpc.close(), current.authedRpc.close()]);
      }
    }

    // The graceful stops finished their blocks and flushed the journal without a failed step.
    const log = daemonLogText(dataDir);
    expect(log).not.toMatch(/shutdown step failed|consensus round failed/);

    // Whatever was still pending gets mined once the node runs on.
    const last = await startTestDaemon(FLAGS, dataDir);
    daemon = last;
    await expectNothingLost(last, ledger);
    await waitFor(
      async () => {
        const receipts = await Promise.all(
          [...ledger.acked]
            .slice(-50)
            .map((hash) => last.rpc.call<RawReceipt | null>('eth_getTransactionReceipt', [hash])),
        );
        return receipts.every((receipt) => receipt !== null);
      },
      30_000,
      'the last acknowledged transactions to be mined',
    );
    expect(ledger.acked.size).toBeGreaterThan(KILL_CYCLES * ACKS_PER_CYCLE.min);
  }, 150_000);
});
