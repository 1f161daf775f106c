// Workload: the soak (opt-in, long). A fresh node at block time 1 s serves a steady mix for a
// given time: value and ERC-20 transfers at a fixed rate, signed as they are sent, and reads at a
// fixed rate (eth_blockNumber, eth_getBalance, eth_call `balanceOf` of an owner never asked
// before, so no cached outcome answers it, and eth_getLogs over the last blocks). Its resident
// memory is sampled every few seconds. What matters is whether memory stays flat once the
// node has warmed up: a cache without a bound, a buffer kept per block or a listener added per
// request shows as drift over the run. The first samples (the warm-up: caches filling, code
// being compiled) are left out of the comparison.
import { performance } from 'node:perf_hooks';
import { Wallet, getCreateAddress } from 'ethers';
import {
  balanceOfData,
  deploymentData,
  transferData,
  TRANSFER_TOPIC,
} from '../chain/token-fixture.js';
import {
  DEPLOY_GAS,
  SUPPLY,
  TOKEN_TRANSFER_GAS,
  VALUE_TRANSFER_GAS,
  request,
} from '../chain/transaction-plan.js';
import { residentMiB } from '../processes/proc-stats.js';
import { connectRpc } from '../rpc.js';
import { RECIPIENT } from '../settings.js';
import { median } from '../statistics.js';

/**
 * @typedef {object} SoakOptions
 * @property {number} minutes how long the mix runs
 * @property {number} transfersPerSecond half value transfers, half ERC-20 transfers
 * @property {number} readsPerSecond spread evenly over the four read methods
 * @property {number} sampleSeconds between two readings of resident memory
 */

/** @type {SoakOptions} */
export const SOAK_DEFAULTS = {
  minutes: 60,
  transfersPerSecond: 10,
  readsPerSecond: 100,
  sampleSeconds: 5,
};

/** Requests the read loop keeps in flight. */
const READ_CONCURRENCY = 4;
/** Blocks an eth_getLogs of the soak spans, ending at the head. */
const LOG_BLOCKS = 10;
/** Share of the run, at least a minute, counted as warm-up and left out of the drift. */
const WARM_UP_SHARE = 0.1;
const MIN_WARM_UP_SECONDS = 60;
/** Samples whose median stands for the start and for the end of the measured part. */
const EDGE_SAMPLES = 5;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (value) => `0x${value.toString(16)}`;

/**
 * Start, end, lowest and highest of one series of samples after the warm-up, and the drift
 * from start to end in percent (start and end each the median of a few samples, so one
 * reading taken in the middle of a collection does not decide it).
 * @param {number[]} values
 */
export function driftOf(values) {
  if (values.length < 2 * EDGE_SAMPLES) throw new Error('too few samples for a drift');
  const start = median(values.slice(0, EDGE_SAMPLES));
  const end = median(values.slice(-EDGE_SAMPLES));
  const round = (value) => Math.round(value * 10) / 10;
  return {
    startMiB: round(start),
    endMiB: round(end),
    minMiB: round(Math.min(...values)),
    maxMiB: round(Math.max(...values)),
    driftPercent: round(((end - start) / start) * 100),
  };
}

/**
 * Sends the soak's transfers: dev account 0 deployed the token and sends the ERC-20 transfers,
 * the other dev accounts take turns with the value transfers. Nonces are counted here.
 */
class TransferSender {
  /** @param {import('../rpc.js').Rpc} rpc @param {readonly string[]} keys @param {string} token */
  constructor(rpc, keys, token) {
    this.rpc = rpc;
    this.token = token;
    this.wallets = keys.map((key) => new Wallet(key));
    this.nonces = keys.map(() => 0);
    this.turn = 0;
    this.sent = 0;
    this.refused = [];
  }

  async send(index, fields) {
    const raw = await this.wallets[index].signTransaction(request(this.nonces[index], fields));
    this.nonces[index] += 1;
    this.sent += 1;
    await this.rpc.call('eth_sendRawTransaction', [raw]).catch((error) => {
      this.refused.push(error.message);
    });
  }

  deploy() {
    return this.send(0, { to: null, data: deploymentData(SUPPLY), gasLimit: DEPLOY_GAS });
  }

  /** One value transfer and one ERC-20 transfer. */
  pair() {
    this.turn = (this.turn % (this.wallets.length - 1)) + 1;
    return Promise.all([
      this.send(this.turn, { to: RECIPIENT, value: 1n, gasLimit: VALUE_TRANSFER_GAS }),
      this.send(0, {
        to: this.token,
        data: transferData(RECIPIENT, 1n),
        gasLimit: TOKEN_TRANSFER_GAS,
      }),
    ]);
  }
}

/**
 * One read of the mix, chosen by `count`.
 * @param {import('../rpc.js').Rpc} rpc @param {string} token @param {number} count
 */
async function readOnce(rpc, token, count) {
  switch (count % 4) {
    case 0:
      return rpc.call('eth_blockNumber', []);
    case 1:
      return rpc.call('eth_getBalance', [RECIPIENT, 'latest']);
    case 2: {
      // An owner no call asked about before: the call runs in the EVM.
      const owner = `0x${count.toString(16).padStart(40, '0')}`;
      return rpc.call('eth_call', [{ to: token, data: balanceOfData(owner) }, 'latest']);
    }
    default: {
      const head = BigInt(await rpc.call('eth_blockNumber', []));
      const from = head > BigInt(LOG_BLOCKS) ? head - BigInt(LOG_BLOCKS) : 0n;
      return rpc.call('eth_getLogs', [
        { address: token, topics: [TRANSFER_TOPIC], fromBlock: hex(from), toBlock: hex(head) },
      ]);
    }
  }
}

/**
 * Runs `action` `perSecond` times a second, each after the last has finished, until `until`
 * (a performance.now() time); resolves with how many ran.
 */
async function paced(perSecond, until, action) {
  const interval = 1000 / perSecond;
  let next = performance.now();
  let count = 0;
  while (next < until) {
    await action(count);
    count += 1;
    // Behind schedule (a slow answer), the next one goes at once, without catching up.
    next = Math.max(next + interval, performance.now());
    const wait = next - performance.now();
    if (wait > 0) await pause(wait);
  }
  return count;
}

/**
 * The soak on a fresh node started by `start` (block time 1 s). Stops the node.
 * @param {() => Promise<import('../processes/anvil.js').RunningNode>} start
 * @param {readonly string[]} devKeys the dev accounts' private keys (account 0 first)
 * @param {SoakOptions} options
 * @param {(message: string) => void} progress
 */
export async function runSoak(start, devKeys, options, progress) {
  const node = await start();
  const rpc = connectRpc(node.url, READ_CONCURRENCY + 4);
  try {
    const token = getCreateAddress({ from: new Wallet(devKeys[0]).address, nonce: 0 });
    const sender = new TransferSender(rpc, devKeys, token);
    await sender.deploy();
    while ((await rpc.call('eth_getCode', [token, 'latest'])) === '0x') await pause(200);
    progress(`${node.name}: soak of ${options.minutes} min`);

    const started = performance.now();
    const until = started + options.minutes * 60_000;
    const samples = [];
    const sampling = paced(1 / options.sampleSeconds, until, () => {
      samples.push({ seconds: (performance.now() - started) / 1000, ...residentMiB(node.pid) });
      if (samples.length % 60 === 0) {
        const last = samples.at(-1);
        progress(
          `${node.name}: soak at ${Math.round(last.seconds)} s, ${last.total.toFixed(1)} MiB`,
        );
      }
    });
    let readErrors = 0;
    const readers = Array.from({ length: READ_CONCURRENCY }, (_, reader) =>
      paced(options.readsPerSecond / READ_CONCURRENCY, until, (count) =>
        readOnce(rpc, token, count * READ_CONCURRENCY + reader).catch(() => {
          readErrors += 1;
        }),
      ),
    );
    const pairs = paced(options.transfersPerSecond / 2, until, () => sender.pair());
    const [, reads] = await Promise.all([sampling, Promise.all(readers), pairs]);

    const warmUpSeconds = Math.max(MIN_WARM_UP_SECONDS, WARM_UP_SHARE * options.minutes * 60);
    const measured = samples.filter((sample) => sample.seconds >= warmUpSeconds);
    const head = Number(await rpc.call('eth_blockNumber', []));
    return {
      ...options,
      warmUpSeconds,
      blocks: head,
      transfersSent: sender.sent,
      transfersRefused: sender.refused.length,
      firstRefusal: sender.refused[0],
      reads: reads.reduce((sum, count) => sum + count, 0),
      readErrors,
      resident: driftOf(measured.map((sample) => sample.total)),
      anonymous: driftOf(measured.map((sample) => sample.anonymous)),
      fileBacked: driftOf(measured.map((sample) => sample.file)),
      samples,
    };
  } finally {
    await rpc.close();
    await node.stop();
  }
}
