/**
 * What crosses between the main thread and a trace thread: jobs, the progress that restarts a
 * job's time limit, and its result or failure.
 */
import type { CodeCacheUse } from '../../shared/bundle-script.js';
import type { ChainParameters } from '../chain/chain-reader.js';
import type { CallRequestData, JobFailure } from '../call-threads/protocol.js';
import type { TraceOptions } from './trace-options.js';

export type TraceJob =
  /** Block `number` (only its transaction at `only` when given). */
  | { kind: 'block'; number: bigint; only?: number }
  /** A block given as RLP, on top of its parent in the chain. */
  | { kind: 'blockRlp'; rlp: Uint8Array }
  /** A call, with its state and block overrides, on the state after block `blockNumber`. */
  | { kind: 'call'; request: CallRequestData; blockNumber: bigint };

/** The `workerData` of a trace thread. */
export interface TraceThreadData {
  dataDir: string;
  /** The producer's `SharedHead` buffer, which the thread's reader follows. */
  sharedHead: SharedArrayBuffer;
  chain: ChainParameters;
  /** The most JSON a trace's result may hold (`--json-rpc.trace-result-max-size`). */
  resultMaxBytes: number;
}

/** A job for a thread, which runs them one at a time. */
export interface TraceJobMessage {
  job: TraceJob;
  options: TraceOptions;
}

export type TraceThreadMessage =
  /** The thread's reader is open: it takes jobs. Its code came from V8's code cache or not. */
  | { type: 'ready'; codeCache?: CodeCacheUse }
  /** A traced transaction of the current job starts: its time limit starts now. */
  | { type: 'tx' }
  /** The result as JSON text, in pieces (`json-pieces.ts`). */
  | { type: 'done'; json: string[] }
  | { type: 'failed'; failure: JobFailure };
