/**
 * A call thread (see `call-thread-pool.ts`): runs the calls and gas estimates the main thread
 * sends, on a `ChainReader` of its own that follows the block producer's head, and serves the
 * main thread's sender recovery when it is lent a port for it. The build bundles it into
 * `call-thread.cjs`, which the thread's entry (`call-thread-entry.ts`) compiles with V8's code
 * cache and starts with {@link serveCalls}.
 */
// First: the hex codec the hashing library looks for as it loads.
import '../hex-builtins.js';
import { parentPort, workerData } from 'node:worker_threads';
import { ChainReader } from '../chain/chain-reader.js';
import { simulatedData, simulationOf } from '../chain/simulate.js';
import { serveRecoveries } from '../crypto/recovery-service.js';
import type { ThreadServeOptions } from '../thread-bundle.js';
import { AnswerBatch } from './answer-batch.js';
import { JobBoard } from './job-board.js';
import {
  failureOf,
  requestOf,
  type CallThreadData,
  type JobAnswer,
  type JobData,
  type MainMessage,
  type ThreadMessage,
} from './protocol.js';

/**
 * A call thread reads blocks only for the call context and BLOCKHASH, and no receipts; its
 * memory goes to the state caches of its calls.
 */
const THREAD_CACHE_BYTES = { blocks: 2 * 2 ** 20, receipts: 0 };

/** Longest the first answer held waits for more before they are sent (`answer-batch.ts`). */
const ANSWER_WAIT_MS = 2;

const data = workerData as CallThreadData;
const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);
const board = new JobBoard(data.board);

async function run(reader: ChainReader, job: JobData): Promise<JobAnswer> {
  try {
    if (job.kind === 'simulate') {
      const blocks = await reader.simulateHere(simulationOf(job.simulation), job.blockNumber);
      return { type: 'simulated', id: job.id, blocks: simulatedData(blocks) };
    }
    const request = requestOf(job.request);
    if (job.kind === 'call') {
      return {
        type: 'called',
        id: job.id,
        outcome: await reader.runCallHere(request, job.blockNumber),
      };
    }
    if (job.kind === 'accessList') {
      return {
        type: 'accessListed',
        id: job.id,
        result: await reader.createAccessListHere(request, job.blockNumber),
      };
    }
    return {
      type: 'estimated',
      id: job.id,
      gas: await reader.estimateGasHere(request, job.blockNumber),
    };
  } catch (error) {
    return { type: 'failed', id: job.id, failure: failureOf(error) };
  }
}

/** Opens the chain and serves the main thread's jobs until it asks the thread to close. */
export async function serveCalls({
  codeCache,
  afterFirstBatch,
}: ThreadServeOptions): Promise<void> {
  // Recoveries need no chain: a burst's transactions wait for them, not for the chain to open.
  if (data.recoveryPort !== undefined) {
    serveRecoveries(data.recoveryPort);
    post({ type: 'recovering' });
  }
  const reader = await ChainReader.openFollower({
    dataDir: data.dataDir,
    parameters: data.chain,
    sharedHead: data.sharedHead,
    cacheBytes: THREAD_CACHE_BYTES,
  });

  const held = new AnswerBatch<JobAnswer>(ANSWER_WAIT_MS, (answers) =>
    post({ type: 'answers', answers }),
  );
  let firstBatchDone = afterFirstBatch;

  /** Runs the jobs of a batch the main thread has not taken back, in order, one at a time. */
  const runBatch = async (jobs: JobData[]): Promise<void> => {
    for (const job of jobs) {
      held.beforeCall(job.caller, Date.now());
      if (!board.begin(job.id)) continue;
      const answer = await run(reader, job);
      board.end();
      held.add(answer, job.caller, Date.now());
    }
    held.flush();
    firstBatchDone?.();
    firstBatchDone = undefined;
  };

  // Batches run one after the other, in the order they came, so each job's time limit is its own.
  let previous: Promise<void> = Promise.resolve();
  port.on('message', (message: MainMessage) => {
    if (message.type === 'jobs') previous = previous.then(() => runBatch(message.jobs));
    else void previous.then(() => reader.close()).finally(() => post({ type: 'closed' }));
  });
  post({ type: 'ready', codeCache });
}
