/**
 * `eth_simulateV1`, as geth runs it: blocks of calls simulated on top of a committed block,
 * each call a transaction of its simulated block, the state carried from call to call and from
 * block to block. Everything runs on a VM of its own whose trie writes land in a private
 * overlay, dropped with it: nothing is persisted.
 *
 * The simulated blocks are real blocks of their own: state, transaction and receipt roots,
 * bloom and hash, each the parent of the next, and BLOCKHASH inside them sees the earlier ones.
 */
import { Block, createBlock, createBlockHeader, createBlockHeaderFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { BlockHeader } from '@ethereumjs/block';
import type { EVM, EVMMockBlockchainInterface, Log } from '@ethereumjs/evm';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address, KECCAK256_NULL, bytesToHex, createZeroAddress } from '@ethereumjs/util';
import { Bloom, createVM, encodeReceipt, runTx } from '@ethereumjs/vm';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import {
  ExecutionRevertedError,
  SimulationRefusedError,
  type SimulationFailure,
} from '../../shared/errors.js';
import { nextBaseFee } from './base-fee.js';
import type { BlockOverrides } from './block-overrides.js';
import { zeroForMissingBlocks } from './block-overrides.js';
import {
  buildTx,
  decodeRevertReason,
  feeCap,
  callRequestData,
  callRequestOf,
  type CallEnvironment,
  type CallRequest,
  type CallRequestData,
} from './call.js';
import { openTrie } from './chain-reader.js';
import { checksumAddress } from './checksum-address.js';
import { gethError } from './evm-errors.js';
import { MIN_TX_GAS, emptyBlockFields, rejectionReason } from './executor.js';
import { OrderedTrieRoot } from './ordered-trie-root.js';
import { applyStateOverrides, type StateOverrides } from './state-overrides.js';
import { TransferLogRecorder } from './transfer-logs.js';
import { TrieNodeOverlay } from './trie-node-overlay.js';
import type { BlockOutline, ChainLog } from './types.js';

/** Most blocks one simulation may have, gaps between overridden numbers included (geth's). */
export const MAX_SIMULATED_BLOCKS = 256;
/** Seconds between simulated blocks whose time is not given (geth's). */
const TIMESTAMP_INCREMENT = 12n;
/** The code of a call that failed in the EVM otherwise than by reverting (execution-apis). */
const VM_ERROR_CODE = -32015;
/** Code of a reverted call: the revert bytes in `data`, as for eth_call. */
const REVERTED_CODE = 3;

/** One entry of `blockStateCalls`. */
export interface SimulatedBlockInput {
  blockOverrides?: BlockOverrides;
  stateOverrides?: StateOverrides;
  calls: CallRequest[];
}

export interface SimulationRequest {
  blocks: SimulatedBlockInput[];
  /** Check nonces, base fees and funds as a real block would (geth's `validation`). */
  validation: boolean;
  /** Log movements of ether among the calls' logs (geth's `traceTransfers`, `transfer-logs.ts`). */
  traceTransfers?: boolean;
}

export interface SimulatedCall {
  returnData: Uint8Array;
  /** The call's logs; none for a call that failed. */
  logs: ChainLog[];
  gasUsed: bigint;
  status: 0 | 1;
  error?: { code: number; message: string; data?: string };
}

/**
 * A call as the transaction of its simulated block: its unsigned encoding (decoded only when
 * asked for, by `returnFullTransactions`) and the call's sender.
 */
export interface SimulatedTransaction {
  encoded: Uint8Array;
  sender: Address;
}

export interface SimulatedBlock {
  outline: BlockOutline;
  transactions: SimulatedTransaction[];
  calls: SimulatedCall[];
}

/** What a simulation needs of the chain: a call's environment and the base-fee floor. */
export type SimulationEnvironment = Pick<
  CallEnvironment,
  'common' | 'readNode' | 'blockchain' | 'block' | 'gasCap'
> & { baseFeeFloor: bigint };

/** A simulated block's place: its number and time settled, and what it holds. */
interface PlannedBlock {
  number: bigint;
  time: bigint;
  input: SimulatedBlockInput;
}

const refuse = (failure: SimulationFailure, message: string) =>
  new SimulationRefusedError(failure, message);

/**
 * geth's rules for the blocks' numbers and times: a block without a number follows the one
 * before; numbers must increase, and a gap is filled with empty blocks; a block without a time
 * comes 12 seconds after the one before, and times must increase.
 */
export function planBlocks(base: BlockHeader, blocks: SimulatedBlockInput[]): PlannedBlock[] {
  if (blocks.length > MAX_SIMULATED_BLOCKS) throw refuse('clientLimitExceeded', 'too many blocks');
  const planned: PlannedBlock[] = [];
  let number = base.number;
  let time = base.timestamp;
  for (const input of blocks) {
    const wanted = input.blockOverrides?.number ?? number + 1n;
    if (wanted <= number) {
      throw refuse('blockNumberOrder', `block numbers must be in order: ${wanted} <= ${number}`);
    }
    if (wanted - base.number > BigInt(MAX_SIMULATED_BLOCKS)) {
      throw refuse('clientLimitExceeded', 'too many blocks');
    }
    for (number++; number < wanted; number++) {
      time += TIMESTAMP_INCREMENT;
      planned.push({ number, time, input: { calls: [] } });
    }
    const wantedTime = input.blockOverrides?.time ?? time + TIMESTAMP_INCREMENT;
    if (wantedTime <= time) {
      throw refuse(
        'blockTimestampOrder',
        `block timestamps must be in order: ${wantedTime} <= ${time}`,
      );
    }
    time = wantedTime;
    planned.push({ number, time, input });
  }
  return planned;
}

/** BLOCKHASH over the simulated blocks, then the chain's (zero for blocks it does not have). */
function simulatedHashes(
  chain: EVMMockBlockchainInterface,
  hashes: Map<bigint, Uint8Array>,
): EVMMockBlockchainInterface {
  const committed = zeroForMissingBlocks(chain);
  const source: EVMMockBlockchainInterface = {
    getBlock: async (number: number) => {
      const hash = hashes.get(BigInt(number));
      return hash === undefined ? committed.getBlock(number) : { hash: () => hash };
    },
    putBlock: async () => {},
    shallowCopy: () => source,
  };
  return source;
}

async function scratchVm(
  env: SimulationEnvironment,
  blockchain: EVMMockBlockchainInterface,
): Promise<VM> {
  const trie = openTrie(env.common, new TrieNodeOverlay(env.readNode), env.block.header.stateRoot);
  const stateManager = new MerkleStateManager({ trie, common: env.common, caches: new Caches() });
  // A copy of its own, as in `CallVmCache`: the EVM's listener on its Common would otherwise
  // keep every simulation's VM alive.
  return createVM({ common: env.common.copy(), stateManager, blockchain });
}

/** geth's wording of a refused call: the reason, then the gas the call was given. */
const refusal = (failure: SimulationFailure, reason: string, gas: bigint) =>
  refuse(failure, `err: ${reason} (supplied gas ${gas})`);

/**
 * geth's checks of a simulated transaction before it runs, in its order and words: the nonce
 * and base fee only with validation, the funds for gas and value and the intrinsic gas always.
 */
async function refuseInvalid(
  vm: VM,
  request: CallRequest,
  tx: TypedTransaction,
  nonce: bigint,
  block: Block,
  validation: boolean,
): Promise<void> {
  const sender = request.from ?? createZeroAddress();
  const who = checksumAddress(sender);
  const account = await vm.stateManager.getAccount(sender);
  const stateNonce = account?.nonce ?? 0n;
  const gas = tx.gasLimit;
  if (validation) {
    if (nonce < stateNonce) {
      throw refusal(
        'nonceTooLow',
        `nonce too low: address ${who}, tx: ${nonce} state: ${stateNonce}`,
        gas,
      );
    }
    if (nonce > stateNonce) {
      throw refusal(
        'nonceTooHigh',
        `nonce too high: address ${who}, tx: ${nonce} state: ${stateNonce}`,
        gas,
      );
    }
    if (stateNonce === 2n ** 64n - 1n) {
      throw refusal(
        'invalidTransaction',
        `nonce has max value: address ${who}, nonce: ${stateNonce}`,
        gas,
      );
    }
    const baseFee = block.header.baseFeePerGas ?? 0n;
    if (feeCap(request) < baseFee) {
      throw refusal(
        'baseFeeTooLow',
        `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${feeCap(request)}, baseFee: ${baseFee}`,
        gas,
      );
    }
  }
  const balance = account?.balance ?? 0n;
  const cost = gas * feeCap(request) + (request.value ?? 0n);
  if (cost > balance) {
    throw refusal(
      'insufficientFunds',
      `insufficient funds for gas * price + value: address ${who} have ${balance} want ${cost}`,
      gas,
    );
  }
  const intrinsic = tx.getIntrinsicGas();
  if (gas < intrinsic) {
    throw refusal('intrinsicGas', `intrinsic gas too low: have ${gas}, want ${intrinsic}`, gas);
  }
}

/** The first bytes of an EIP-7702 delegation, which a transaction's sender may have as code. */
const DELEGATION_PREFIX = '0xef0100';

const isDelegation = (code: Uint8Array) => bytesToHex(code.subarray(0, 3)) === DELEGATION_PREFIX;

/**
 * Runs a transaction of `sender` even when the sender holds code, as geth's simulation does
 * (with validation too): `runTx` refuses such a sender (EIP-3607) and has no option to skip the
 * check. The code hash is hidden while `runTx` checks the sender and is back as its message
 * starts (so a call back into the sender runs its code), and again after, whatever happened in
 * between.
 */
async function runFromAnySender(
  vm: VM,
  sender: Address,
  run: () => Promise<RunTxResult>,
): Promise<RunTxResult> {
  const state = vm.stateManager;
  const account = await state.getAccount(sender);
  if (account === undefined || !account.isContract()) return run();
  if (isDelegation(await state.getCode(sender))) return run();
  const { codeHash } = account;
  const setCodeHash = async (hash: Uint8Array) => {
    const current = (await state.getAccount(sender)) ?? account;
    current.codeHash = hash;
    await state.putAccount(sender, current);
  };
  await setCodeHash(KECCAK256_NULL);
  const events = vm.evm.events!;
  let restored = false;
  const restore = async (_message: unknown, resolve?: (result?: unknown) => void) => {
    if (!restored) {
      restored = true;
      await setCodeHash(codeHash);
    }
    resolve?.();
  };
  events.on('beforeMessage', restore);
  try {
    return await run();
  } finally {
    events.off('beforeMessage', restore);
    await setCodeHash(codeHash);
  }
}

/** What a call's run gives back, its logs still without their block's hash. */
interface RanCall {
  tx: TypedTransaction;
  encoded: Uint8Array;
  sender: Address;
  hash: Uint8Array;
  result: RunTxResult;
  /** The logs with the transfers, when they are traced. */
  logs?: Log[];
}

/** Runs the planned blocks; refuses the whole simulation at the first invalid call. */
export async function simulate(
  env: SimulationEnvironment,
  request: SimulationRequest,
): Promise<SimulatedBlock[]> {
  const planned = planBlocks(env.block.header, request.blocks);
  const hashes = new Map<bigint, Uint8Array>();
  const vm = await scratchVm(env, simulatedHashes(env.blockchain, hashes));
  const trieRoot = new OrderedTrieRoot(env.common.customCrypto.keccak256!);
  const keccak256 = env.common.customCrypto.keccak256!;
  let parent = env.block.header;
  let budget = env.gasCap;
  const simulated: SimulatedBlock[] = [];
  for (const plan of planned) {
    const overrides = plan.input.blockOverrides ?? {};
    if (plan.input.stateOverrides !== undefined) {
      await applyStateOverrides(vm, plan.input.stateOverrides);
    }
    const fields = {
      ...emptyBlockFields(env.common),
      parentHash: parent.hash(),
      number: plan.number,
      timestamp: plan.time,
      gasLimit: overrides.gasLimit ?? parent.gasLimit,
      coinbase: overrides.feeRecipient ?? parent.coinbase,
      mixHash: overrides.prevRandao ?? new Uint8Array(32),
      baseFeePerGas:
        overrides.baseFeePerGas ??
        (request.validation ? nextBaseFee(feeParent(parent), env.baseFeeFloor) : 0n),
    };
    const block = executionBlock(env, fields, overrides.blobBaseFee);
    // Without validation a call that names a price below the base fee still runs (geth lifts
    // the check); it runs in the block with a zero base fee.
    let feelessBlock: Block | undefined;
    const ran: RanCall[] = [];
    let gasUsed = 0n;
    for (const call of plan.input.calls) {
      let gas = call.gas ?? fields.gasLimit - gasUsed;
      if (gasUsed + gas > fields.gasLimit) {
        throw refuse(
          'blockGasLimitReached',
          `block gas limit reached: ${gasUsed} >= ${fields.gasLimit}`,
        );
      }
      if (gas > budget) {
        // As geth, the calls of one simulation share the gas cap; past it, none can start.
        if (budget < MIN_TX_GAS) {
          throw refuse(
            'clientLimitExceeded',
            `gas limit of the simulation reached: its calls may use ${env.gasCap} gas in all (--json-rpc.gas-cap)`,
          );
        }
        gas = budget;
      }
      const sender = call.from ?? createZeroAddress();
      const nonce = call.nonce ?? (await vm.stateManager.getAccount(sender))?.nonce ?? 0n;
      let tx: TypedTransaction;
      try {
        tx = buildTx(env, call, gas, nonce);
      } catch (error) {
        throw refusal('invalidTransaction', rejectionReason(error), gas);
      }
      await refuseInvalid(vm, call, tx, nonce, block, request.validation);
      const runIn =
        !request.validation && feeCap(call) < fields.baseFeePerGas
          ? (feelessBlock ??= executionBlock(
              env,
              { ...fields, baseFeePerGas: 0n },
              overrides.blobBaseFee,
            ))
          : block;
      const run = () =>
        runTx(vm, {
          tx,
          block: runIn,
          blockGasUsed: gasUsed,
          skipNonce: true,
          skipBalance: true,
          skipBlockGasLimitValidation: true,
          skipHardForkValidation: true,
        });
      const transfers = request.traceTransfers
        ? new TransferLogRecorder(vm.evm as EVM, sender)
        : undefined;
      let result: RunTxResult;
      try {
        result = await runFromAnySender(vm, sender, run);
      } catch (error) {
        throw refusal('invalidTransaction', rejectionReason(error), gas);
      } finally {
        transfers?.detach();
      }
      gasUsed += result.blockGasSpent;
      budget -= result.totalGasSpent;
      const encoded = tx.serialize();
      ran.push({ tx, encoded, sender, hash: keccak256(encoded), result, logs: transfers?.logs() });
    }
    const header = await assembleHeader(env, vm, trieRoot, fields, ran, gasUsed);
    const hash = header.hash();
    hashes.set(plan.number, hash);
    simulated.push({
      outline: {
        header,
        number: plan.number,
        hash,
        hashHex: bytesToHex(hash),
        size: new Block(
          header,
          ran.map((r) => r.tx),
          [],
          [],
        ).serialize().length,
        transactionHashes: ran.map((r) => bytesToHex(r.hash)),
      },
      transactions: ran.map(({ encoded, sender }) => ({ encoded, sender })),
      calls: callResults(ran, header, hash),
    });
    parent = header;
  }
  return simulated;
}

/** What the next base fee is computed from. */
const feeParent = (header: BlockHeader) => ({
  baseFeePerGas: header.baseFeePerGas ?? 0n,
  gasUsed: header.gasUsed,
  gasLimit: header.gasLimit,
});

/** The block calls run in: `fields`, with the blob base fee given when overridden. */
function executionBlock(
  env: SimulationEnvironment,
  fields: Parameters<typeof createBlockHeader>[0],
  blobBaseFee: bigint | undefined,
): Block {
  const block = createBlock({ header: fields }, { common: env.common, freeze: false });
  // The header derives BLOBBASEFEE from its excess blob gas, which no value gives exactly.
  if (blobBaseFee !== undefined) block.header.getBlobGasPrice = () => blobBaseFee;
  return block;
}

async function assembleHeader(
  env: SimulationEnvironment,
  vm: VM,
  trieRoot: OrderedTrieRoot,
  fields: Parameters<typeof createBlockHeader>[0],
  ran: RanCall[],
  gasUsed: bigint,
): Promise<BlockHeader> {
  const bloom = new Bloom(undefined, env.common);
  for (const { result } of ran) bloom.or(result.bloom);
  return createBlockHeader(
    {
      ...fields,
      stateRoot: await vm.stateManager.getStateRoot(),
      transactionsTrie: trieRoot.ofList(ran.map((r) => r.encoded)),
      receiptTrie: trieRoot.ofList(ran.map((r) => encodeReceipt(r.result.receipt, r.tx.type))),
      logsBloom: bloom.bitvector,
      gasUsed,
    },
    { common: env.common },
  );
}

/** Each call's outcome in geth's form, its logs placed in the block. */
function callResults(ran: RanCall[], header: BlockHeader, hash: Uint8Array): SimulatedCall[] {
  let logIndex = 0;
  return ran.map(({ hash: txHash, result, logs: recorded }, index) => {
    const { execResult } = result;
    const failure = execResult.exceptionError?.error;
    const logs =
      failure !== undefined
        ? []
        : (recorded ?? execResult.logs ?? []).map(([address, topics, data]) => ({
            address: new Address(address),
            topics,
            data,
            blockNumber: header.number,
            blockHash: hash,
            blockTimestamp: header.timestamp,
            transactionHash: txHash,
            transactionIndex: index,
            logIndex: logIndex++,
            removed: false,
          }));
    const call: SimulatedCall = {
      returnData: execResult.returnValue,
      logs,
      gasUsed: result.totalGasSpent,
      status: failure === undefined ? 1 : 0,
    };
    if (failure === 'revert') {
      const data = execResult.returnValue;
      const reverted = new ExecutionRevertedError(bytesToHex(data), decodeRevertReason(data));
      call.error = { code: REVERTED_CODE, message: reverted.message, data: bytesToHex(data) };
    } else if (failure !== undefined) {
      call.error = { code: VM_ERROR_CODE, message: gethError(failure) };
    }
    return call;
  });
}

/** A simulated call as plain data: its logs' addresses as bytes. */
export type SimulatedCallData = Omit<SimulatedCall, 'logs'> & {
  logs: Array<Omit<ChainLog, 'address'> & { address: Uint8Array }>;
};

/**
 * A simulated block as plain data, to cross from a call thread (class instances do not): its
 * header as RLP, read back with the chain's `Common` by {@link simulatedOf}.
 */
export interface SimulatedBlockData {
  header: Uint8Array;
  hash: Uint8Array;
  size: number;
  transactionHashes: readonly string[];
  /** Each transaction's unsigned encoding and its sender's 20 bytes. */
  transactions: Array<Omit<SimulatedTransaction, 'sender'> & { sender: Uint8Array }>;
  calls: SimulatedCallData[];
}

/** A simulation request as plain data: its calls' addresses as bytes. */
export interface SimulationRequestData {
  blocks: Array<Omit<SimulatedBlockInput, 'calls'> & { calls: CallRequestData[] }>;
  validation: boolean;
}

export function simulationData(request: SimulationRequest): SimulationRequestData {
  return {
    ...request,
    blocks: request.blocks.map((block) => ({ ...block, calls: block.calls.map(callRequestData) })),
  };
}

export function simulationOf(data: SimulationRequestData): SimulationRequest {
  return {
    ...data,
    blocks: data.blocks.map((block) => ({ ...block, calls: block.calls.map(callRequestOf) })),
  };
}

export function simulatedData(blocks: SimulatedBlock[]): SimulatedBlockData[] {
  return blocks.map(({ outline, transactions, calls }) => ({
    header: outline.header.serialize(),
    hash: outline.hash,
    size: outline.size,
    transactionHashes: outline.transactionHashes,
    transactions: transactions.map(({ encoded, sender }) => ({ encoded, sender: sender.bytes })),
    calls: calls.map((call) => ({
      ...call,
      logs: call.logs.map((log) => ({ ...log, address: log.address.bytes })),
    })),
  }));
}

export function simulatedOf(data: SimulatedBlockData[], common: Common): SimulatedBlock[] {
  return data.map((block) => {
    const header = createBlockHeaderFromRLP(block.header, { common });
    return {
      outline: {
        header,
        number: header.number,
        hash: block.hash,
        hashHex: bytesToHex(block.hash),
        size: block.size,
        transactionHashes: block.transactionHashes,
      },
      transactions: block.transactions.map(({ encoded, sender }) => ({
        encoded,
        sender: new Address(sender),
      })),
      calls: block.calls.map((call) => ({
        ...call,
        logs: call.logs.map((log) => ({ ...log, address: new Address(log.address) })),
      })),
    };
  });
}
