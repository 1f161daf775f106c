/**
 * Re-executes committed history under a tracer: a block's transactions on its parent's state
 * (those before the traced one untraced, as geth does), or a call on the state after a block.
 * Runs on a trace thread (`trace-thread.ts`), over the thread's own `ChainReader`; every write
 * lands in a private overlay over the committed trie nodes and is dropped with it.
 */
import type { Block } from '@ethereumjs/block';
import type { EVM } from '@ethereumjs/evm';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, createZeroAddress } from '@ethereumjs/util';
import { createVM, runTx, type RunTxOpts, type VM } from '@ethereumjs/vm';
import {
  buildTx,
  callBlock,
  hasFee,
  refuseUnaffordableWith,
  type CallRequest,
} from '../chain/call.js';
import { blockHashSource, openTrie, type ChainReader } from '../chain/chain-reader.js';
import { effectiveGasPrice, rejectionReason } from '../chain/executor.js';
import { TrieNodeOverlay } from '../chain/trie-node-overlay.js';
import {
  LimitExceededError,
  NotFoundError,
  TransactionRejectedError,
} from '../../shared/errors.js';
import { overriddenCallBlock, zeroForMissingBlocks } from '../chain/block-overrides.js';
import { applyStateOverrides } from '../chain/state-overrides.js';
import type { ResultBudget } from './result-budget.js';
import type { TraceOptions } from './trace-options.js';
import type { TracedTx, TxTracer } from './tracer.js';
import { createTracer } from './tracers.js';

/** One transaction's trace in a block trace, as geth lists them. */
export interface TxTraceResult {
  txHash: string;
  result: unknown;
}

/** Called as each traced transaction starts: what the per-transaction time limit counts from. */
export type TxStarted = () => void;

async function vmAt(reader: ChainReader, stateRoot: Uint8Array): Promise<VM> {
  const trie = openTrie(reader.common, new TrieNodeOverlay(reader.trieNodes), stateRoot);
  const stateManager = new MerkleStateManager({
    trie,
    common: reader.common,
    caches: new Caches(),
  });
  return createVM({
    // A copy of its own, as in `CallVmCache`: the EVM's listener on its Common would otherwise
    // keep every replay's VM alive.
    common: reader.common.copy(),
    stateManager,
    blockchain: blockHashSource((number) => reader.getBlockByNumber(number)?.hash),
  });
}

/**
 * Runs one transaction under `tracer`. A tracer that reads the state around the transaction
 * gets it after, then (the transaction reverted) before; `keepState` runs it once more,
 * untraced, for the transactions that follow it.
 */
async function runTraced(
  vm: VM,
  options: RunTxOpts,
  tracer: TxTracer,
  keepState: boolean,
): Promise<unknown> {
  const { states } = tracer;
  if (states !== undefined) await vm.stateManager.checkpoint();
  const detach = tracer.attach(vm.evm as EVM);
  let outcome;
  try {
    outcome = await runTx(vm, options);
  } finally {
    detach();
  }
  if (states !== undefined) {
    await states.afterTx(vm.stateManager);
    await vm.stateManager.revert();
    await states.beforeTx(vm.stateManager);
    if (keepState) await runTx(vm, options);
  }
  return tracer.result(outcome);
}

function blockTx(block: Block, tx: TypedTransaction, index: number): TracedTx {
  return {
    from: tx.getSenderAddress(),
    to: tx.to,
    gasLimit: tx.gasLimit,
    gasPrice: effectiveGasPrice(tx, block.header.baseFeePerGas ?? 0n),
    value: tx.value,
    coinbase: block.header.coinbase,
    blockNumber: block.header.number,
    blockHash: block.hash(),
    hash: tx.hash(),
    index,
  };
}

/**
 * Refuses to trace the genesis block: it has no parent state to replay it on. A request that
 * cannot be served rather than a malformed one, so -32000 as geth answers.
 */
export function refuseGenesis(blockNumber: bigint): void {
  if (blockNumber === 0n) throw new NotFoundError('genesis is not traceable');
}

/**
 * Traces the transactions of `block` (only the one at `only` when given) on its parent's state.
 * Transactions after the last traced one are not run.
 */
export async function traceBlock(
  reader: ChainReader,
  block: Block,
  options: TraceOptions,
  only: number | undefined,
  started: TxStarted,
  budget: ResultBudget,
): Promise<TxTraceResult[]> {
  refuseGenesis(block.header.number);
  const parent = reader.getBlockByHash(block.header.parentHash);
  if (parent === undefined) {
    throw new NotFoundError(`parent ${bytesToHex(block.header.parentHash)} not found`);
  }
  const vm = await vmAt(reader, parent.block.header.stateRoot);
  const last = only ?? block.transactions.length - 1;
  const results: TxTraceResult[] = [];
  let blockGasUsed = 0n;
  for (let index = 0; index <= last; index++) {
    const tx = block.transactions[index];
    const run: RunTxOpts = {
      tx,
      block,
      blockGasUsed,
      skipHardForkValidation: true,
      skipBlockGasLimitValidation: true,
    };
    if (only !== undefined && index !== only) {
      blockGasUsed += (await runTx(vm, run)).blockGasSpent;
      continue;
    }
    started();
    const tracer = createTracer(options.tracer, blockTx(block, tx, index), budget);
    results.push({
      txHash: bytesToHex(tx.hash()),
      result: await runTraced(vm, run, tracer, index < last),
    });
  }
  return results;
}

/**
 * Traces a call on the state after block `blockNumber`, with geth's state and block overrides
 * as `eth_call` applies them.
 */
export async function traceCall(
  reader: ChainReader,
  request: CallRequest,
  blockNumber: bigint,
  options: TraceOptions,
  started: TxStarted,
  budget: ResultBudget,
): Promise<unknown> {
  const stored = reader.getBlockByNumber(blockNumber);
  if (stored === undefined) throw new NotFoundError(`block #${blockNumber} not found`);
  const vm = await vmAt(reader, stored.block.header.stateRoot);
  const { stateOverrides, blockOverrides } = request;
  if (stateOverrides !== undefined) await applyStateOverrides(vm, stateOverrides);
  const cap = reader.parameters.callGasCap;
  const gasLimit = request.gas !== undefined && request.gas < cap ? request.gas : cap;
  const withFee = hasFee(request);
  // As eth_call: a sender that cannot pay is refused with geth's words before a transaction
  // is built (EthereumJS throws on a fee whose product with the gas passes 2^256).
  await refuseUnaffordableWith(
    async (address) => (await vm.stateManager.getAccount(address))?.balance ?? 0n,
    request,
    gasLimit,
  );
  let block: Block;
  if (blockOverrides === undefined) {
    block = callBlock(reader.common, stored.block.header, withFee, gasLimit);
  } else {
    const header = stored.block.header;
    block = overriddenCallBlock(reader.common, header, blockOverrides, withFee, gasLimit);
    // This VM serves this trace alone: BLOCKHASH past the chain answers zero, as for eth_call.
    const evm = vm.evm as EVM;
    evm.blockchain = zeroForMissingBlocks(evm.blockchain);
  }
  const tx = buildTx(reader, request, gasLimit);
  const tracer = createTracer(
    options.tracer,
    {
      from: request.from ?? createZeroAddress(),
      to: request.to,
      gasLimit,
      gasPrice: withFee ? effectiveGasPrice(tx, block.header.baseFeePerGas ?? 0n) : 0n,
      value: request.value ?? 0n,
      coinbase: block.header.coinbase,
      blockNumber: block.header.number,
      blockHash: stored.hash,
      index: 0,
    },
    budget,
  );
  started();
  try {
    return await runTraced(
      vm,
      {
        tx,
        block,
        skipNonce: true,
        skipBalance: !withFee,
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
      },
      tracer,
      false,
    );
  } catch (error) {
    if (error instanceof LimitExceededError) throw error;
    throw new TransactionRejectedError(rejectionReason(error), { cause: error });
  }
}
