/** Messages between the main thread and the JSON-RPC threads, and what a thread starts with. */
import type { ChainParameters } from '../chain/chain-reader.js';
import type { NodeConfig } from '../config/options.js';
import type { CallReply, ForwardedCall } from '../rpc/dispatcher.js';
import type { SharedAddress } from '../transport/shared-listen.js';

/** The options a JSON-RPC thread reads. */
export type RpcThreadConfig = Pick<
  NodeConfig,
  | 'evm.rpc.api'
  | 'json-rpc.cors'
  | 'json-rpc.max-body-size'
  | 'json-rpc.batch-request-limit'
  | 'json-rpc.batch-response-max-size'
  | 'json-rpc.ethereum-compat'
  | 'log-level'
>;

/** The `workerData` of a JSON-RPC thread. */
export interface RpcThreadData {
  /** 1-based, for the log. */
  index: number;
  /** For web3_clientVersion (the thread's bundle is not where `version.ts` looks). */
  packageVersion: string;
  dataDir: string;
  listen: SharedAddress;
  token: string;
  /** The producer's `SharedHead` buffer. */
  sharedHead: SharedArrayBuffer;
  chain: ChainParameters;
  config: RpcThreadConfig;
}

export type ThreadMessage =
  { type: 'listening' } | { type: 'call'; id: number; call: ForwardedCall } | { type: 'closed' };

export type MainMessage = { type: 'reply'; id: number; reply: CallReply } | { type: 'close' };
