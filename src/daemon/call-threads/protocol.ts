/**
 * What crosses between the main thread and the call threads: the jobs (a call, a gas estimate,
 * an access list or a simulation at a committed block), handed over in batches, their results,
 * sent back several to a message, and their failures as the node's own errors.
 */
import type { CodeCacheUse } from '../../shared/bundle-script.js';
import type { MessagePort } from 'node:worker_threads';
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { AccessListResult } from '../chain/access-list.js';
import type { CallOutcome, CallRequestData } from '../chain/call.js';
import { decodeRevertReason } from '../chain/call.js';
import type { SimulatedBlockData, SimulationRequestData } from '../chain/simulate.js';
import type { ChainParameters } from '../chain/chain-reader.js';
import {
  ExecutionRevertedError,
  LimitExceededError,
  NotFoundError,
  SimulationRefusedError,
  TransactionRejectedError,
  type SimulationFailure,
} from '../../shared/errors.js';

export {
  callRequestData as requestData,
  callRequestOf as requestOf,
  type CallRequestData,
} from '../chain/call.js';

/** The `workerData` of a call thread. */
export interface CallThreadData {
  /** 1-based, for the log. */
  index: number;
  dataDir: string;
  /** The producer's `SharedHead` buffer, which the thread's reader follows. */
  sharedHead: SharedArrayBuffer;
  chain: ChainParameters;
  /** Where the main thread's sender recovery sends signatures, when it uses this thread. */
  recoveryPort?: MessagePort;
  /** The `JobBoard` buffer this thread claims its jobs on. */
  board: SharedArrayBuffer;
}

/** The jobs that run one call request; a simulation runs many. */
export type CallJobKind = 'call' | 'estimateGas' | 'accessList';
export type JobKind = CallJobKind | 'simulate';

/** What a job runs, as it crosses to the thread. */
export type JobInputData =
  | { kind: CallJobKind; request: CallRequestData }
  | { kind: 'simulate'; simulation: SimulationRequestData };

/** Why a job failed. */
export type JobFailure =
  | { kind: 'reverted'; data: string }
  | { kind: 'rejected'; message: string }
  /** The block asked for is gone: a development rewind took it after the main thread chose it. */
  | { kind: 'notFound'; message: string }
  /** A limit of the job's own, such as a trace's result size. */
  | { kind: 'limit'; message: string }
  /** eth_simulateV1 refused the simulation. */
  | { kind: 'simulation'; failure: SimulationFailure; message: string }
  | { kind: 'internal'; message: string };

export type JobData = JobInputData & {
  id: number;
  /** Whom the job is for (`call-thread-pool.ts`): answers of two callers are not held together. */
  caller: string;
  blockNumber: bigint;
};

/** A batch of jobs, to run in their order; each only if claimed on the board first. */
export type MainMessage = { type: 'jobs'; jobs: JobData[] } | { type: 'close' };

/** How one job ended. */
export type JobAnswer =
  | { type: 'called'; id: number; outcome: CallOutcome }
  | { type: 'estimated'; id: number; gas: bigint }
  | { type: 'accessListed'; id: number; result: AccessListResult }
  | { type: 'simulated'; id: number; blocks: SimulatedBlockData[] }
  | { type: 'failed'; id: number; failure: JobFailure };

export type ThreadMessage =
  | { type: 'recovering' }
  | { type: 'ready'; codeCache: CodeCacheUse }
  | { type: 'answers'; answers: JobAnswer[] }
  | { type: 'closed' };

/** How a job's error travels: reverts and refusals as such, anything else by its message. */
export function failureOf(error: unknown): JobFailure {
  if (error instanceof ExecutionRevertedError)
    return { kind: 'reverted', data: String(error.data) };
  if (error instanceof TransactionRejectedError)
    return { kind: 'rejected', message: error.message };
  if (error instanceof NotFoundError) return { kind: 'notFound', message: error.message };
  if (error instanceof LimitExceededError) return { kind: 'limit', message: error.message };
  if (error instanceof SimulationRefusedError) {
    return { kind: 'simulation', failure: error.failure, message: error.message };
  }
  return { kind: 'internal', message: String((error as Error)?.stack ?? error) };
}

/** The error a failed job stands for on the main thread. */
export function errorOf(failure: JobFailure): Error {
  switch (failure.kind) {
    case 'reverted': {
      const data = failure.data as PrefixedHexString;
      return new ExecutionRevertedError(data, decodeRevertReason(hexToBytes(data)));
    }
    case 'rejected':
      return new TransactionRejectedError(failure.message);
    case 'notFound':
      return new NotFoundError(failure.message);
    case 'limit':
      return new LimitExceededError(failure.message);
    case 'simulation':
      return new SimulationRefusedError(failure.failure, failure.message);
    case 'internal':
      return new Error(`call thread: ${failure.message}`);
  }
}
