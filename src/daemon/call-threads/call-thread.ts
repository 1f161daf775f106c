/**
 * Entry of a call thread (see `call-thread-pool.ts`): runs the calls and gas estimates the main
 * thread sends, on a `ChainReader` of its own that follows the block producer's head, and serves
 * the main thread's sender recovery when it is lent a port for it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ChainReader } from '../chain/chain-reader.js';
import { serveRecoveries } from '../crypto/recovery-service.js';
import {
  failureOf,
  requestOf,
  type CallThreadData,
  type MainMessage,
  type ThreadMessage,
} from './protocol.js';

/**
 * A call thread reads blocks only for the call context and BLOCKHASH, and no receipts; its
 * memory goes to the state caches of its calls.
 */
const THREAD_CACHE_BYTES = { blocks: 2 * 2 ** 20, receipts: 0 };

const data = workerData as CallThreadData;
const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);

const reader = await ChainReader.openFollower({
  dataDir: data.dataDir,
  parameters: data.chain,
  sharedHead: data.sharedHead,
  cacheBytes: THREAD_CACHE_BYTES,
});
if (data.recoveryPort !== undefined) serveRecoveries(data.recoveryPort);

async function run(job: Extract<MainMessage, { type: 'job' }>): Promise<void> {
  const request = requestOf(job.request);
  try {
    if (job.kind === 'call') {
      post({
        type: 'called',
        id: job.id,
        outcome: await reader.runCallHere(request, job.blockNumber),
      });
    } else if (job.kind === 'accessList') {
      post({
        type: 'accessListed',
        id: job.id,
        result: await reader.createAccessListHere(request, job.blockNumber),
      });
    } else {
      post({
        type: 'estimated',
        id: job.id,
        gas: await reader.estimateGasHere(request, job.blockNumber),
      });
    }
  } catch (error) {
    post({ type: 'failed', id: job.id, failure: failureOf(error) });
  }
}

/** Jobs run one at a time, in the order they came, so each one's time limit is its own. */
let previous: Promise<void> = Promise.resolve();
port.on('message', (message: MainMessage) => {
  if (message.type === 'job') previous = previous.then(() => run(message));
  else void previous.then(() => reader.close()).finally(() => post({ type: 'closed' }));
});
post({ type: 'ready' });
