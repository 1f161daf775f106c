// Workload: a burst. Every sender's transactions go out at once, as a deployment script, a market
// maker or ethers' NonceManager sends them: each sender is a client of its own that posts its
// transactions as JSON-RPC batches of BATCH_SIZE (ethers' default batch size) in nonce order, all
// batches of all senders in flight together, so one sender's batches reach the node interleaved
// with each other and with everyone else's. Measured: the rate at which eth_sendRawTransaction
// accepts them (first send to last answer), the committed rate (first send to the commit of the
// last), the node's CPU time over both phases (the machine is shared, so wall time alone says
// little), and the latency of eth_blockNumber sampled on a thread of its own meanwhile.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { burstKeys, planBurst } from '../chain/burst-plan.js';
import { signedPlan } from '../chain/signed-plan-cache.js';
import {
  countCommitted,
  measureCommits,
  poolStatus,
  watchCommits,
} from '../chain/commit-throughput.js';
import { percentile, sampleLatency } from '../load/latency-sampler.js';
import { cpuSeconds, cpuSecondsByThread, residentMiB } from '../processes/proc-stats.js';
import { connectRpc } from '../rpc.js';

const BATCH_SIZE = 100;
/** Transactions this node's pool holds by default (geth's 5 120 + 1 024 slots). */
const DEFAULT_POOL_SLOTS = 6144;

/**
 * The flags this node needs for a burst of `transactions`: none, unless the burst is larger
 * than its default pool, which would refuse the excess as "txpool is full" (anvil's pool has
 * no bound); then a pool twice the burst's size. @param {number} transactions
 */
export function nodeCliBurstFlags(transactions) {
  return transactions > DEFAULT_POOL_SLOTS
    ? ['--txpool.globalslots', String(2 * transactions)]
    : [];
}

/** Senders of every burst, as in issue #17's measurement. */
export const BURST_SENDERS = 32;

/**
 * The signed transactions of a burst of about `transactions` (rounded up to a multiple of the
 * senders), signed once and cached in `cacheDir`.
 * @param {string} funderKey dev account 0's key @param {number} transactions @param {string} cacheDir
 */
export function signedBurst(funderKey, transactions, cacheDir) {
  const keys = burstKeys(funderKey, BURST_SENDERS);
  return signedPlan(planBurst(keys, Math.ceil(transactions / BURST_SENDERS)), keys, cacheDir);
}

/** Splits `items` into runs of at most `size`. */
function chunks(items, size) {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, (index + 1) * size),
  );
}

/** Posts one batch of raw transactions; resolves with the error messages of the refused ones. */
async function sendBatch(pool, path, transactions) {
  const body = JSON.stringify(
    transactions.map(({ raw }, index) => ({
      jsonrpc: '2.0',
      id: index,
      method: 'eth_sendRawTransaction',
      params: [raw],
    })),
  );
  const response = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body,
  });
  const answers = JSON.parse(await response.body.text());
  if (!Array.isArray(answers)) throw new Error(`batch refused: ${JSON.stringify(answers)}`);
  return answers.filter((answer) => answer.error).map((answer) => answer.error.message);
}

/**
 * @typedef {object} BurstResult
 * @property {number} transactions
 * @property {number} senders
 * @property {number} acceptSeconds first send to the last batch's answer
 * @property {number} acceptedPerSecond
 * @property {number} committedSeconds first send to observed commit of the last
 * @property {number} committedPerSecond
 * @property {number} cpuMsPer1000Accepted the node's CPU time (all threads) while accepting
 * @property {number} cpuMsPer1000Committed the node's CPU time from first send to last commit
 * @property {number} mainThreadCpuMsPer1000Accepted the same as cpuMsPer1000Accepted, main thread only
 * @property {number[]} otherThreadsCpuMsPer1000Accepted the same of each other thread, largest first
 * @property {{samples: number, p50Ms: number, p99Ms: number, maxMs: number}} blockNumberLatency
 * @property {number} blocks blocks holding the burst's transactions
 */

/**
 * Sends the burst `lanes` to the node at `url` (process `pid`) and waits for all of them to be
 * committed. Fails if any transaction is refused or missing from the blocks.
 * @param {import('../rpc.js').Rpc} rpc control client (block number, receipts)
 * @param {string} url @param {number} pid
 * @param {import('../chain/sign-plan.js').SignedLane[]} lanes
 * @param {number} timeoutMs
 * @returns {Promise<BurstResult>}
 */
export async function measureBurst(rpc, url, pid, lanes, timeoutMs) {
  const batches = lanes.flatMap((lane) => chunks(lane.transactions, BATCH_SIZE));
  const { origin, pathname } = new URL(url);
  // One connection per batch: every batch is in flight at once, as from that many clients.
  const pool = new Pool(origin, { connections: batches.length, pipelining: 1 });
  const transactions = batches.reduce((sum, batch) => sum + batch.length, 0);
  const startBlock = Number(await rpc.call('eth_blockNumber'));
  const stopSampling = await sampleLatency(url);
  const run = { abandoned: false };
  try {
    const cpuBefore = cpuSeconds(pid);
    const mainBefore = cpuSeconds(pid, pid);
    const threadsBefore = cpuSecondsByThread(pid);
    const started = performance.now();
    const deadline = started + timeoutMs;
    const watching = watchCommits(rpc, lanes, startBlock, deadline, run);
    watching.catch(() => undefined);
    const refusals = (
      await Promise.all(batches.map((batch) => sendBatch(pool, pathname, batch)))
    ).flat();
    const accepted = performance.now();
    const cpuAccepted = cpuSeconds(pid);
    const mainAccepted = cpuSeconds(pid, pid);
    const threadsAccepted = cpuSecondsByThread(pid);
    if (refusals.length > 0) {
      run.abandoned = true;
      throw new Error(
        `${refusals.length} of ${transactions} refused, first: ${refusals[0]}; pool: ${JSON.stringify(await poolStatus(rpc))}`,
      );
    }
    const { receipts, committedAt } = await watching;
    const cpuCommitted = cpuSeconds(pid);
    const samples = (await stopSampling()).sort((a, b) => a - b);
    const lastBlock = Math.max(...receipts.map((receipt) => Number(receipt.blockNumber)));
    const { found, firstBlock } = await countCommitted(rpc, lanes, startBlock + 1, lastBlock);
    if (found !== transactions)
      throw new Error(`only ${found} of ${transactions} transactions are in blocks`);
    const failed = receipts.filter((receipt) => receipt.status !== '0x1').length;
    if (failed > 0) throw new Error(`${failed} senders' last transaction failed`);
    const acceptSeconds = (accepted - started) / 1000;
    const committedSeconds = (committedAt - started) / 1000;
    const perThousand = (cpu) => Math.round((cpu * 1e6) / transactions);
    return {
      transactions,
      senders: lanes.length,
      acceptSeconds,
      acceptedPerSecond: transactions / acceptSeconds,
      committedSeconds,
      committedPerSecond: transactions / committedSeconds,
      cpuMsPer1000Accepted: perThousand(cpuAccepted - cpuBefore),
      cpuMsPer1000Committed: perThousand(cpuCommitted - cpuBefore),
      mainThreadCpuMsPer1000Accepted: perThousand(mainAccepted - mainBefore),
      otherThreadsCpuMsPer1000Accepted: Object.entries(threadsAccepted)
        .filter(([thread]) => Number(thread) !== pid)
        .map(([thread, seconds]) => perThousand(seconds - (threadsBefore[thread] ?? 0)))
        .filter((ms) => ms > 0)
        .sort((a, b) => b - a),
      blockNumberLatency: {
        samples: samples.length,
        p50Ms: percentile(samples, 0.5),
        p99Ms: percentile(samples, 0.99),
        maxMs: samples.at(-1) ?? 0,
      },
      blocks: lastBlock - firstBlock + 1,
    };
  } finally {
    run.abandoned = true;
    await stopSampling();
    await pool.close();
  }
}

/**
 * The burst suite on a fresh node (started by `start`, block time 1 s): the set-up lane, then
 * the value burst and the ERC-20 burst, then resident memory. Stops the node.
 * @param {() => Promise<import('../processes/anvil.js').RunningNode>} start
 * @param {{setup: object[], value: object[], token: object[]}} signed from a burst plan
 * @param {(message: string) => void} progress
 */
export async function runBurstSuite(start, signed, progress, timeoutMs) {
  const node = await start();
  const rpc = connectRpc(node.url, 16);
  try {
    progress(`${node.name}: burst set-up (token, funding the senders)`);
    const setup = await measureCommits(rpc, signed.setup, timeoutMs);
    if (setup.failed > 0) throw new Error('the burst set-up failed');
    const result = {};
    for (const kind of ['value', 'token']) {
      const count = signed[kind].reduce((sum, lane) => sum + lane.transactions.length, 0);
      progress(`${node.name}: burst of ${count} ${kind} transfers`);
      result[kind] = await measureBurst(rpc, node.url, node.pid, signed[kind], timeoutMs);
      progress(
        `${node.name}: ${kind}: accepted ${result[kind].acceptedPerSecond.toFixed(0)}/s, committed ${result[kind].committedPerSecond.toFixed(0)}/s, ${result[kind].cpuMsPer1000Accepted} CPU ms per 1000 accepted`,
      );
    }
    result.residentMiB = residentMiB(node.pid).total;
    return result;
  } finally {
    await rpc.close();
    await node.stop();
  }
}
