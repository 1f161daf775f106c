/**
 * What every tracer is: subscribed to the EVM for one transaction, then asked for geth's JSON
 * result. The replay (`replay.ts`) drives them; each tracer lives in a module of its own.
 */
import type { EVM } from '@ethereumjs/evm';
import type { StateManagerInterface } from '@ethereumjs/common';
import type { Address } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';

/** The transaction being traced, and where it sits. */
export interface TracedTx {
  from: Address;
  to?: Address;
  gasLimit: bigint;
  /** The price per gas the sender pays. */
  gasPrice: bigint;
  value: bigint;
  coinbase: Address;
  blockNumber: bigint;
  blockHash: Uint8Array;
  /** Absent for `debug_traceCall`. */
  hash?: Uint8Array;
  index: number;
}

export interface TxTracer {
  /** Subscribes to `evm`'s events for the transaction; returns what unsubscribes. */
  attach(evm: EVM): () => void;
  /**
   * Set by tracers that read state around the transaction: the replay calls `afterTx` with the
   * state after it, then reverts the transaction and calls `beforeTx` with the state before it.
   */
  states?: {
    afterTx(state: StateManagerInterface): Promise<void>;
    beforeTx(state: StateManagerInterface): Promise<void>;
  };
  /** geth's JSON result. */
  result(outcome: RunTxResult): unknown;
}
