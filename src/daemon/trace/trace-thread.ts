/**
 * A trace thread: runs the trace jobs the main thread sends, one at a time, on a `ChainReader`
 * of its own that follows the producer's head. Tracing is CPU work of up to the trace's time
 * limit per transaction; on a thread of its own it never holds up block production or other
 * requests, and the main thread stops a job at its limit by terminating the thread, as nothing
 * else stops the EVM mid-run. The build bundles it into `trace-thread.cjs`, which the thread's
 * entry (`trace-thread-entry.ts`) compiles with V8's code cache and starts with
 * {@link serveTraces}.
 */
// First: the hex codec the hashing library looks for as it loads.
import '../hex-builtins.js';
import { createBlockFromRLP } from '@ethereumjs/block';
import { parentPort, workerData } from 'node:worker_threads';
import { ChainReader } from '../chain/chain-reader.js';
import { failureOf, requestOf } from '../call-threads/protocol.js';
import { NotFoundError } from '../../shared/errors.js';
import { jsonPieces } from './json-pieces.js';
import { traceBlock, traceCall, type TxStarted } from './replay.js';
import { ResultBudget } from './result-budget.js';
import type {
  TraceJob,
  TraceJobMessage,
  TraceThreadData,
  TraceThreadMessage,
} from './trace-protocol.js';
import type { TraceOptions } from './trace-options.js';
import type { ThreadServeOptions } from '../thread-bundle.js';

/** A trace reads blocks for BLOCKHASH and its own block, and no receipts. */
const THREAD_CACHE_BYTES = { blocks: 2 * 2 ** 20, receipts: 0 };

const data = workerData as TraceThreadData;
const post = (message: TraceThreadMessage) => parentPort!.postMessage(message);

async function run(
  reader: ChainReader,
  job: TraceJob,
  options: TraceOptions,
  started: TxStarted,
): Promise<unknown> {
  const budget = new ResultBudget(data.resultMaxBytes);
  const result = await runJob(reader, job, options, started, budget);
  budget.check();
  return result;
}

async function runJob(
  reader: ChainReader,
  job: TraceJob,
  options: TraceOptions,
  started: TxStarted,
  budget: ResultBudget,
): Promise<unknown> {
  switch (job.kind) {
    case 'block': {
      const stored = reader.getBlockByNumber(job.number);
      if (stored === undefined) throw new NotFoundError(`block #${job.number} not found`);
      const results = await traceBlock(reader, stored.block, options, job.only, started, budget);
      return job.only === undefined ? results : results[0].result;
    }
    case 'blockRlp': {
      const block = createBlockFromRLP(job.rlp, { common: reader.common });
      return traceBlock(reader, block, options, undefined, started, budget);
    }
    case 'call':
      return traceCall(reader, requestOf(job.request), job.blockNumber, options, started, budget);
  }
}

/** Opens the chain and runs the main thread's trace jobs. */
export async function serveTraces({
  codeCache,
  afterFirstBatch,
}: ThreadServeOptions): Promise<void> {
  const reader = await ChainReader.openFollower({
    dataDir: data.dataDir,
    parameters: data.chain,
    sharedHead: data.sharedHead,
    cacheBytes: THREAD_CACHE_BYTES,
  });
  let firstJobDone = afterFirstBatch;
  parentPort!.on('message', ({ job, options }: TraceJobMessage) => {
    void run(reader, job, options, () => post({ type: 'tx' }))
      .then(
        (result) => post({ type: 'done', json: jsonPieces(result) }),
        (error: unknown) => post({ type: 'failed', failure: failureOf(error) }),
      )
      .finally(() => {
        firstJobDone?.();
        firstJobDone = undefined;
      });
  });
  post({ type: 'ready', codeCache });
}
