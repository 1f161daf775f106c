// Sends pre-signed transactions with eth_sendRawTransaction, one lane per sender in nonce order,
// and measures the time from the first send to the commit of the last one. A watcher polls the
// block number; on every new block it asks for the receipt of each unfinished lane's last
// transaction (a lane is committed when its highest nonce is). Afterwards every block of the run
// is read back to check that all transactions were committed.
import { performance } from 'node:perf_hooks';

const POLL_MS = 10;
/**
 * With transactions outstanding both nodes make a block at least every second; this long without
 * one means the run is stuck (a transaction lost, or the pool refusing the one that would unblock
 * a sender), and the measurement fails instead of waiting for the overall deadline.
 */
const STALL_MS = 30_000;
/**
 * Requests in flight per sender, so transactions of one sender can arrive out of nonce order as
 * they do from real clients.
 */
const SEND_WINDOW = 4;

/** @param {number} ms */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {string} hex */
const toNumber = (hex) => Number(BigInt(hex));

/**
 * Resolves once the block number exceeds `after`; gives up when the run is abandoned, when the
 * deadline passes or when no block comes for STALL_MS.
 * @param {import('../rpc.js').Rpc} rpc @param {number} after @param {number} deadline
 * @param {{abandoned: boolean}} run
 */
async function blockAfter(rpc, after, deadline, run) {
  const stalledAt = performance.now() + STALL_MS;
  for (;;) {
    if (run.abandoned) throw new Error('the run was abandoned');
    const current = toNumber(await rpc.call('eth_blockNumber'));
    if (current > after) return current;
    if (performance.now() > deadline)
      throw new Error(`no block after ${after} before the deadline`);
    if (performance.now() > stalledAt)
      throw new Error(
        `no block after ${after} for ${STALL_MS / 1000} s with transactions outstanding`,
      );
    await pause(POLL_MS);
  }
}

/**
 * Sends one transaction. A node that limits transactions per sender answers "txpool is full";
 * then `onFull` is told (once) and the transaction waits for the next block, which frees slots,
 * and is sent again.
 */
async function sendOne(rpc, raw, deadline, stats, onFull) {
  const refusedUntil = performance.now() + STALL_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await rpc.call('eth_sendRawTransaction', [raw]);
      return;
    } catch (error) {
      if (!/txpool is full/i.test(String(error.message))) throw error;
      stats.poolFullRetries += 1;
      if (attempt === 0) onFull();
      if (performance.now() > refusedUntil)
        throw new Error(`a transaction was refused as "txpool is full" for ${STALL_MS / 1000} s`);
      await blockAfter(rpc, toNumber(await rpc.call('eth_blockNumber')), deadline, stats);
    }
  }
}

/**
 * Sends one lane in nonce order with up to SEND_WINDOW requests in flight, so the sender's
 * round-trip latency does not cap the rate. When the node refuses a transaction because the
 * sender's slots are full, the lane sends nothing newer until that one is accepted: otherwise the
 * newer ones would fill the freed slots as queued transactions behind the gap and the refused one
 * could never get in.
 */
async function sendLane(rpc, lane, deadline, stats) {
  let next = 0;
  let gate = Promise.resolve();
  const passGate = async () => {
    for (let seen = gate; ; seen = gate) {
      await seen;
      if (seen === gate) return;
    }
  };
  const sender = async () => {
    for (;;) {
      await passGate();
      if (next >= lane.transactions.length || stats.abandoned) return;
      const { raw } = lane.transactions[next];
      next += 1;
      let release = () => undefined;
      const held = new Promise((resolve) => (release = resolve));
      try {
        await sendOne(rpc, raw, deadline, stats, () => (gate = held));
      } finally {
        release();
      }
    }
  };
  await Promise.all(Array.from({ length: SEND_WINDOW }, sender));
}

/** Polls until the last transaction of every lane has a receipt; returns those receipts. */
export async function watchCommits(rpc, lanes, startBlock, deadline, run) {
  const receipts = new Map();
  let seen = startBlock;
  while (receipts.size < lanes.length) {
    seen = await blockAfter(rpc, seen, deadline, run);
    const open = lanes.filter((lane) => !receipts.has(lane.sender));
    const answers = await Promise.all(
      open.map((lane) => rpc.call('eth_getTransactionReceipt', [lane.transactions.at(-1).hash])),
    );
    open.forEach((lane, index) => {
      if (answers[index]) receipts.set(lane.sender, answers[index]);
    });
  }
  return { receipts: [...receipts.values()], committedAt: performance.now() };
}

/** txpool_status of the node, for the message of a stuck run; null if it cannot be had. */
export async function poolStatus(rpc) {
  try {
    return await rpc.call('txpool_status');
  } catch {
    return null;
  }
}

/** Counts the run's transactions found in blocks first..last; returns the blocks that held any. */
export async function countCommitted(rpc, lanes, fromBlock, toBlock) {
  const wanted = new Set(lanes.flatMap((lane) => lane.transactions.map((tx) => tx.hash)));
  let found = 0;
  let firstBlock = null;
  for (let height = fromBlock; height <= toBlock; height += 1) {
    const block = await rpc.call('eth_getBlockByNumber', [`0x${height.toString(16)}`, false]);
    const ours = block.transactions.filter((hash) => wanted.has(hash)).length;
    if (ours > 0 && firstBlock === null) firstBlock = height;
    found += ours;
  }
  return { found, firstBlock };
}

/**
 * @typedef {object} CommitResult
 * @property {number} transactions sent and committed
 * @property {number} seconds first send to observed commit of the last
 * @property {number} perSecond committed transactions per second
 * @property {number} submitSeconds first send to last accepted send
 * @property {number} poolFullRetries
 * @property {number} firstBlock first block holding one of the run's transactions
 * @property {number} lastBlock block of the last commit
 * @property {number} failed transactions whose lane-final receipt has status 0
 */

/**
 * @param {import('../rpc.js').Rpc} rpc
 * @param {import('./sign-plan.js').SignedLane[]} lanes
 * @param {number} timeoutMs bound on the whole run
 * @returns {Promise<CommitResult>}
 */
export async function measureCommits(rpc, lanes, timeoutMs) {
  const startBlock = toNumber(await rpc.call('eth_blockNumber'));
  const started = performance.now();
  const deadline = started + timeoutMs;
  const stats = { poolFullRetries: 0, abandoned: false };
  // Whichever side fails first abandons the run, so neither waits for the other's deadline, and
  // its error (with the pool's state, which tells a lost transaction from a slow node) is thrown.
  let failure;
  const fail = async (error) => {
    if (stats.abandoned) return;
    stats.abandoned = true;
    failure = error;
    failure = new Error(`${error.message}; pool: ${JSON.stringify(await poolStatus(rpc))}`);
  };
  const watching = watchCommits(rpc, lanes, startBlock, deadline, stats).catch(fail);
  try {
    await Promise.all(lanes.map((lane) => sendLane(rpc, lane, deadline, stats)));
  } catch (error) {
    await fail(error);
  }
  const submitted = performance.now();
  const watched = await watching;
  if (failure) throw failure;
  const { receipts, committedAt } = watched;
  const lastBlock = Math.max(...receipts.map((receipt) => toNumber(receipt.blockNumber)));
  const transactions = lanes.reduce((sum, lane) => sum + lane.transactions.length, 0);
  const { found, firstBlock } = await countCommitted(rpc, lanes, startBlock + 1, lastBlock);
  if (found !== transactions)
    throw new Error(
      `only ${found} of ${transactions} transactions are in blocks ${startBlock + 1}..${lastBlock}`,
    );
  const seconds = (committedAt - started) / 1000;
  return {
    transactions,
    seconds,
    perSecond: transactions / seconds,
    submitSeconds: (submitted - started) / 1000,
    poolFullRetries: stats.poolFullRetries,
    firstBlock,
    lastBlock,
    failed: receipts.filter((receipt) => receipt.status !== '0x1').length,
  };
}
