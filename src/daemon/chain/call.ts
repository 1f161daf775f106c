/**
 * `eth_call` and `eth_estimateGas`: a transaction from an unsigned request, run on a throw-away
 * copy of the state at a block (its trie writes land in a private overlay that is dropped).
 */
import { createBlock } from '@ethereumjs/block';
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { ValueEncoding, bytesToHex, createZeroAddress } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { ExecutionRevertedError, TransactionRejectedError } from '../errors.js';
import { SerialQueue } from '../txpool/serial-queue.js';
import { rejectionReason } from './executor.js';
import { LruCache } from './lru-cache.js';
import { TrieNodeOverlay } from './trie-node-overlay.js';
import type { TrieNodeReader } from './trie-node-overlay.js';

/** An unsigned transaction request (`eth_call` / `eth_estimateGas` call object). */
export interface CallRequest {
  from?: Address;
  to?: Address;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
}

/**
 * Outcome of a call that did not revert. `error` is set when execution failed otherwise
 * ('out of gas', 'invalid opcode', ...); the JSON-RPC layer reports it as a server error.
 */
export interface CallResult {
  returnData: Uint8Array;
  gasUsed: bigint;
  error?: string;
}

/** What a call needs to know about the chain. */
export interface CallEnvironment {
  common: Common;
  readNode: TrieNodeReader;
  blockchain: EVMMockBlockchainInterface;
  /** Header of the block whose post-state the call runs on. */
  block: Block;
  /** Most gas a call may use (`--json-rpc.gas-cap`). */
  gasCap: bigint;
  /** VMs reused across calls on the same state. */
  vms: CallVmCache;
}

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';

/** Decodes `Error(string)` and `Panic(uint256)` revert data into a reason, when it is one. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  const hex = bytesToHex(data);
  if (hex.startsWith(ERROR_SELECTOR) && data.length >= 68) {
    const length = Number(BigInt(bytesToHex(data.subarray(36, 68))));
    if (68 + length > data.length) return undefined;
    return new TextDecoder().decode(data.subarray(68, 68 + length));
  }
  if (hex.startsWith(PANIC_SELECTOR) && data.length === 36) {
    return `panic: 0x${BigInt(bytesToHex(data.subarray(4))).toString(16)}`;
  }
  return undefined;
}

function buildTx(env: CallEnvironment, request: CallRequest, gasLimit: bigint): TypedTransaction {
  const base = {
    to: request.to,
    value: request.value ?? 0n,
    data: request.data ?? new Uint8Array(),
    gasLimit,
    nonce: request.nonce ?? 0n,
  };
  const opts = { common: env.common, freeze: false };
  const tx =
    request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined
      ? createFeeMarket1559Tx(
          {
            ...base,
            maxFeePerGas: request.maxFeePerGas ?? request.maxPriorityFeePerGas,
            maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n,
          },
          opts,
        )
      : createLegacyTx({ ...base, gasPrice: request.gasPrice ?? 0n }, opts);
  const from = request.from ?? createZeroAddress();
  tx.getSenderAddress = () => from;
  return tx;
}

function hasFee(request: CallRequest): boolean {
  return (
    (request.gasPrice ?? 0n) > 0n ||
    request.maxFeePerGas !== undefined ||
    request.maxPriorityFeePerGas !== undefined
  );
}

/** VMs kept for the most recently called-on states (usually just the head). */
const CACHED_CALL_STATES = 4;

interface CallVm {
  vm: VM;
  /** Calls on one VM run one at a time: each wraps its run in a checkpoint it reverts. */
  queue: SerialQueue;
}

/**
 * Keeps a VM per recently used state root, so a call does not build a VM and a cold state
 * cache each time (building them dominated the cost of a simple `eth_call`). Every call runs
 * inside a state checkpoint that is reverted afterwards, so nothing it writes survives.
 */
export class CallVmCache {
  private readonly vms = new LruCache<string, Promise<CallVm>>(CACHED_CALL_STATES);
  private readonly blocks = new LruCache<string, Block>(CACHED_CALL_STATES * 2);

  /**
   * The block a call runs in: the selected block's header, with a zero base fee for calls
   * without fees (like geth, so they need no funds) and room for the call's gas. Cached,
   * because building a header (and its Common) cost more than many calls themselves.
   */
  blockFor(env: CallEnvironment, withFee: boolean, gasLimit: bigint): Block {
    const header = env.block.header;
    const limit = gasLimit > header.gasLimit ? gasLimit : header.gasLimit;
    const key = `${bytesToHex(header.hash())}:${withFee}:${limit}`;
    let block = this.blocks.get(key);
    if (block === undefined) {
      block = createBlock(
        {
          header: {
            ...header.toJSON(),
            baseFeePerGas: withFee ? header.baseFeePerGas : 0n,
            gasLimit: limit,
          },
        },
        { common: env.common },
      );
      this.blocks.set(key, block);
    }
    return block;
  }

  async run<T>(env: CallEnvironment, task: (vm: VM) => Promise<T>): Promise<T> {
    const key = bytesToHex(env.block.header.stateRoot);
    let entry = this.vms.get(key);
    if (entry === undefined) {
      entry = this.create(env);
      this.vms.set(key, entry);
    }
    const { vm, queue } = await entry;
    return queue.run(async () => {
      await vm.stateManager.checkpoint();
      try {
        return await task(vm);
      } finally {
        await vm.stateManager.revert();
      }
    });
  }

  private async create(env: CallEnvironment): Promise<CallVm> {
    const trie = new MerklePatriciaTrie({
      db: new TrieNodeOverlay(env.readNode),
      root: env.block.header.stateRoot,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      common: env.common,
    });
    const stateManager = new MerkleStateManager({ trie, common: env.common, caches: new Caches() });
    const vm = await createVM({ common: env.common, stateManager, blockchain: env.blockchain });
    return { vm, queue: new SerialQueue() };
  }
}

/**
 * Runs the request once with `gasLimit` on the state after `env.block`, discarding its writes.
 * Throws `TransactionRejectedError` when the transaction is invalid (e.g. intrinsic gas too low).
 */
async function runOnce(
  env: CallEnvironment,
  request: CallRequest,
  gasLimit: bigint,
): Promise<RunTxResult> {
  const block = env.vms.blockFor(env, hasFee(request), gasLimit);
  return env.vms.run(env, async (vm) => {
    try {
      return await runTx(vm, {
        tx: buildTx(env, request, gasLimit),
        block,
        skipNonce: true,
        skipBalance: !hasFee(request),
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
      });
    } catch (error) {
      throw new TransactionRejectedError(rejectionReason(error), { cause: error });
    }
  });
}

function callGasLimit(env: CallEnvironment, request: CallRequest): bigint {
  return request.gas !== undefined && request.gas < env.gasCap ? request.gas : env.gasCap;
}

function throwIfReverted(result: RunTxResult): void {
  if (result.execResult.exceptionError?.error === 'revert') {
    const data = result.execResult.returnValue;
    throw new ExecutionRevertedError(bytesToHex(data), decodeRevertReason(data));
  }
}

/** Executes a call; reverts throw `ExecutionRevertedError` with the revert data. */
export async function executeCall(env: CallEnvironment, request: CallRequest): Promise<CallResult> {
  if (hasFee(request)) {
    const result = await runOnce(env, request, callGasLimit(env, request));
    throwIfReverted(result);
    return {
      returnData: result.execResult.returnValue,
      gasUsed: result.totalGasSpent,
      error: result.execResult.exceptionError?.error,
    };
  }
  return runFeelessCall(env, request);
}

/**
 * A call without fee fields runs as a plain EVM message (no transaction object to build and
 * validate: that cost more than executing a typical view function). The gas cap still bounds it.
 */
async function runFeelessCall(env: CallEnvironment, request: CallRequest): Promise<CallResult> {
  const gasLimit = callGasLimit(env, request);
  const block = env.vms.blockFor(env, false, gasLimit);
  const caller = request.from ?? createZeroAddress();
  const result = await env.vms.run(env, (vm) =>
    vm.evm.runCall({
      block,
      caller,
      origin: caller,
      to: request.to,
      value: request.value ?? 0n,
      data: request.data ?? new Uint8Array(),
      gasLimit,
      gasPrice: 0n,
      skipBalance: true,
    }),
  );
  const { execResult } = result;
  if (execResult.exceptionError?.error === 'revert') {
    throw new ExecutionRevertedError(
      bytesToHex(execResult.returnValue),
      decodeRevertReason(execResult.returnValue),
    );
  }
  return {
    returnData: execResult.returnValue,
    gasUsed: execResult.executionGasUsed,
    error: execResult.exceptionError?.error,
  };
}

/** geth stops the search once the interval is within 1.5% of the upper bound. */
const ESTIMATE_ERROR_RATIO = 0.015;

async function succeeds(
  env: CallEnvironment,
  request: CallRequest,
  gasLimit: bigint,
): Promise<boolean> {
  try {
    const result = await runOnce(env, request, gasLimit);
    return result.execResult.exceptionError === undefined;
  } catch (error) {
    if (error instanceof TransactionRejectedError) return false;
    throw error;
  }
}

/**
 * Smallest gas limit with which the request succeeds, found by binary search like geth.
 * Reverts throw `ExecutionRevertedError`; a request that fails even with the cap throws
 * `TransactionRejectedError` ("gas required exceeds allowance (N)" or the EVM error).
 */
export async function estimateGas(env: CallEnvironment, request: CallRequest): Promise<bigint> {
  let hi = request.gas !== undefined && request.gas < env.gasCap ? request.gas : env.gasCap;
  if (request.gas === undefined && env.block.header.gasLimit < hi) hi = env.block.header.gasLimit;
  const first = await runOnce(env, request, hi);
  throwIfReverted(first);
  const failure = first.execResult.exceptionError?.error;
  if (failure !== undefined) {
    throw new TransactionRejectedError(
      /out of gas/i.test(failure) ? `gas required exceeds allowance (${hi})` : failure,
    );
  }
  let lo = first.totalGasSpent - 1n;
  const optimistic = ((first.totalGasSpent + first.gasRefund + 2300n) * 64n) / 63n;
  if (optimistic < hi) {
    if (await succeeds(env, request, optimistic)) hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break;
    let mid = (hi + lo) / 2n;
    if (mid > lo * 2n) mid = lo * 2n;
    if (await succeeds(env, request, mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
