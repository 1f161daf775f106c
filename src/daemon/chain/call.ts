/**
 * `eth_call` and `eth_estimateGas`: a transaction from an unsigned request, run on a throw-away
 * copy of the state at a block (its trie writes land in a private overlay that is dropped).
 *
 * A call is a pure function of the block it runs at and of the request, so calls keep what they
 * can for the next: a VM per recent state root, committed state read through shared caches
 * (`call-state.ts`), and the outcome of recent small calls by block hash and request.
 */
import { createBlock } from '@ethereumjs/block';
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { EVMError } from '@ethereumjs/evm';
import type { EVM, EVMMockBlockchainInterface, ExecResult, InterpreterStep } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
} from '@ethereumjs/tx';
import type { AccessList, TypedTransaction } from '@ethereumjs/tx';
import { ValueEncoding, bytesToHex, createZeroAddress } from '@ethereumjs/util';
import type { EOACode7702AuthorizationList } from '@ethereumjs/util';
import { Address } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { ExecutionRevertedError, TransactionRejectedError } from '../../shared/errors.js';
import { SerialQueue } from '../txpool/serial-queue.js';
import { CallStateManager, CommittedReads } from './call-state.js';
import { gasAfterIntrinsic } from './call-intrinsic-gas.js';
import { latin1Key, unprefixedHex } from './byte-strings.js';
import { checksumAddress } from './checksum-address.js';
import { gethError } from './evm-errors.js';
import type { FlatStateView } from './flat-state.js';
import { rejectionReason } from './executor.js';
import { LruCache } from './lru-cache.js';
import { TrieNodeOverlay } from './trie-node-overlay.js';
import { applyStateOverrides, type StateOverrides } from './state-overrides.js';
import {
  overriddenCallBlock,
  zeroForMissingBlocks,
  type BlockOverrides,
} from './block-overrides.js';
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
  /** EIP-2930 access list: the call runs as a typed transaction carrying it. */
  accessList?: AccessList;
  /**
   * EIP-7702 authorizations (never empty, and only with `to`): the call runs as the set-code
   * transaction carrying them, so they are applied and their gas is charged.
   */
  authorizationList?: EOACode7702AuthorizationList;
  /** geth's state overrides, written into the call's state before it runs. */
  stateOverrides?: StateOverrides;
  /** geth's block overrides: header fields of the block the call runs in. */
  blockOverrides?: BlockOverrides;
}

/** A call request with its addresses as bytes (class instances do not cross threads). */
export type CallRequestData = Omit<CallRequest, 'from' | 'to'> & {
  from?: Uint8Array;
  to?: Uint8Array;
};

export function callRequestData(request: CallRequest): CallRequestData {
  return { ...request, from: request.from?.bytes, to: request.to?.bytes };
}

export function callRequestOf(data: CallRequestData): CallRequest {
  return {
    ...data,
    from: data.from === undefined ? undefined : new Address(data.from),
    to: data.to === undefined ? undefined : new Address(data.to),
  };
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
  /** The flat state tables, which answer for the head's state root. */
  flat: FlatStateView;
  blockchain: EVMMockBlockchainInterface;
  /** Header of the block whose post-state the call runs on. */
  block: Block;
  /** Most gas a call may use (`--json-rpc.gas-cap`). */
  gasCap: bigint;
  /** VMs, state reads and outcomes reused across calls. */
  vms: CallVmCache;
}

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';

/** What the Solidity compiler's panic codes mean, in geth's words (clients match on them). */
const PANIC_REASONS = new Map<bigint, string>([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
]);

/** Decodes `Error(string)` and `Panic(uint256)` revert data into a reason, when it is one. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  const hex = bytesToHex(data);
  if (hex.startsWith(ERROR_SELECTOR) && data.length >= 68) {
    const length = Number(BigInt(bytesToHex(data.subarray(36, 68))));
    if (68 + length > data.length) return undefined;
    return new TextDecoder().decode(data.subarray(68, 68 + length));
  }
  if (hex.startsWith(PANIC_SELECTOR) && data.length === 36) {
    const code = BigInt(bytesToHex(data.subarray(4)));
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/** The unsigned transaction a call request stands for, sent by its `from` (or the zero address). */
export function buildTx(
  env: Pick<CallEnvironment, 'common'>,
  request: CallRequest,
  gasLimit: bigint,
  nonce = 0n,
): TypedTransaction {
  const base = {
    to: request.to,
    value: request.value ?? 0n,
    data: request.data ?? new Uint8Array(),
    gasLimit,
    // Calls skip the nonce check and a transaction's nonce changes nothing in its execution;
    // the request's is left out so that 2^64-1, which EIP-2681 forbids in a transaction, is
    // answered like any other. A simulated transaction gives its own, for its hash.
    nonce,
  };
  const opts = { common: env.common, freeze: false };
  const { accessList, authorizationList } = request;
  let tx: TypedTransaction;
  if (authorizationList !== undefined) {
    tx = createEOACode7702Tx(
      {
        ...base,
        maxFeePerGas:
          request.maxFeePerGas ?? request.maxPriorityFeePerGas ?? request.gasPrice ?? 0n,
        maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? request.gasPrice ?? 0n,
        accessList,
        authorizationList,
      },
      opts,
    );
  } else if (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined) {
    tx = createFeeMarket1559Tx(
      {
        ...base,
        maxFeePerGas: request.maxFeePerGas ?? request.maxPriorityFeePerGas,
        maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n,
        accessList,
      },
      opts,
    );
  } else if (accessList !== undefined) {
    tx = createAccessList2930Tx({ ...base, gasPrice: request.gasPrice ?? 0n, accessList }, opts);
  } else {
    tx = createLegacyTx({ ...base, gasPrice: request.gasPrice ?? 0n }, opts);
  }
  const from = request.from ?? createZeroAddress();
  tx.getSenderAddress = () => from;
  return tx;
}

/**
 * Whether the request names a price, and so pays for its gas. Fee fields that are all zero name
 * none: geth runs such a call without fees, whichever fields spell the zero.
 */
export function hasFee(request: CallRequest): boolean {
  return (
    (request.gasPrice ?? 0n) > 0n ||
    (request.maxFeePerGas ?? 0n) > 0n ||
    (request.maxPriorityFeePerGas ?? 0n) > 0n
  );
}

/**
 * A block with `header`'s context for a call: a zero base fee for calls without fees (like geth,
 * so they need no funds) and a gas limit of at least `gasLimit`.
 */
export function callBlock(
  common: Common,
  header: BlockHeader,
  withFee: boolean,
  gasLimit: bigint,
): Block {
  return createBlock(
    {
      header: {
        ...header.toJSON(),
        baseFeePerGas: withFee ? header.baseFeePerGas : 0n,
        gasLimit: gasLimit > header.gasLimit ? gasLimit : header.gasLimit,
      },
    },
    { common },
  );
}

/** VMs kept for the most recently called-on states (usually just the head). */
const CACHED_CALL_STATES = 4;
/** Outcomes kept of recent calls (dapps ask the same view functions again and again). */
const CACHED_CALL_OUTCOMES = 1024;
/** Calls with more input or return data than this are not kept, to bound the cache's memory. */
const CACHED_CALL_MAX_BYTES = 1024;

/** How a call ended: normally (possibly with an EVM error such as out of gas), or reverted. */
export type CallOutcome = { result: CallResult } | { reverted: Uint8Array };

/** Runs a call without looking at kept outcomes: here, or on a thread that runs calls. */
export type CallRunner = (env: CallEnvironment, request: CallRequest) => Promise<CallOutcome>;

interface CallVm {
  vm: VM;
  /** Calls on one VM run one at a time: each wraps its run in a checkpoint it reverts. */
  queue: SerialQueue;
  /**
   * Where the VM's tries write. EthereumJS writes storage changes through to the storage trie
   * even with caches on, so without clearing this after every call the nodes of every call
   * that stored anything would pile up for as long as the VM lives (the head's, while no block
   * comes: for ever on an idle chain without empty blocks).
   */
  nodes: TrieNodeOverlay;
}

/**
 * Keeps a VM per recently used state root, so a call does not build a VM and a cold state
 * cache each time (building them dominated the cost of a simple `eth_call`). Every call runs
 * inside a state checkpoint that is reverted afterwards, so nothing it writes survives; what it
 * read of committed state stays in the shared caches of `call-state.ts`. Also keeps the
 * outcomes of recent calls.
 */
export class CallVmCache {
  private readonly vms = new LruCache<string, Promise<CallVm>>(CACHED_CALL_STATES);
  private readonly blocks = new LruCache<string, Block>(CACHED_CALL_STATES * 2);
  private readonly committed = new CommittedReads();
  /**
   * Outcomes by block hash and request. Nothing to invalidate: a block hash fixes the state
   * and the block context (and, through the parent hashes, every BLOCKHASH answer).
   */
  readonly outcomes = new LruCache<string, CallOutcome>(CACHED_CALL_OUTCOMES);
  /**
   * The VM and the call block used last, by the header object they were looked up for: calls
   * keep coming at one head, whose header stays the same object while it is cached, and the
   * keys above (hex of a root or hash) cost more to make than a typical call's state reads.
   */
  private lastVm: { header: BlockHeader; entry: Promise<CallVm> } | undefined;
  private lastBlock:
    { header: BlockHeader; withFee: boolean; limit: bigint; block: Block } | undefined;
  /** The outcome key's part for the block calls keep coming at, by its header object. */
  private lastBlockKey: { header: BlockHeader; key: string } | undefined;

  /** The block's part of an outcome key: its hash, one character per byte. */
  blockKey(block: Block): string {
    const { header } = block;
    if (this.lastBlockKey?.header !== header) {
      this.lastBlockKey = { header, key: latin1Key(block.hash()) };
    }
    return this.lastBlockKey.key;
  }

  /**
   * The block a call runs in: the selected block's header, with a zero base fee for calls
   * without fees (like geth, so they need no funds) and room for the call's gas. Cached,
   * because building a header (and its Common) cost more than many calls themselves.
   */
  blockFor(env: CallEnvironment, withFee: boolean, gasLimit: bigint): Block {
    const header = env.block.header;
    const limit = gasLimit > header.gasLimit ? gasLimit : header.gasLimit;
    const last = this.lastBlock;
    if (last?.header === header && last.withFee === withFee && last.limit === limit) {
      return last.block;
    }
    const key = `${bytesToHex(header.hash())}:${withFee}:${limit}`;
    let block = this.blocks.get(key);
    if (block === undefined) {
      block = callBlock(env.common, header, withFee, limit);
      this.blocks.set(key, block);
    }
    this.lastBlock = { header, withFee, limit, block };
    return block;
  }

  async run<T>(env: CallEnvironment, task: (vm: VM) => Promise<T>): Promise<T> {
    const { vm, queue, nodes } = await this.vmFor(env);
    return queue.run(async () => {
      await vm.stateManager.checkpoint();
      try {
        return await task(vm);
      } finally {
        await vm.stateManager.revert();
        nodes.clear();
      }
    });
  }

  private vmFor(env: CallEnvironment): Promise<CallVm> {
    const header = env.block.header;
    if (this.lastVm?.header === header) return this.lastVm.entry;
    const key = bytesToHex(header.stateRoot);
    let entry = this.vms.get(key);
    if (entry === undefined) {
      entry = this.create(env);
      this.vms.set(key, entry);
    }
    this.lastVm = { header, entry };
    return entry;
  }

  private async create(env: CallEnvironment): Promise<CallVm> {
    const nodes = new TrieNodeOverlay(env.readNode);
    const trie = new MerklePatriciaTrie({
      db: nodes,
      root: env.block.header.stateRoot,
      useKeyHashing: true,
      valueEncoding: ValueEncoding.Bytes,
      common: env.common,
    });
    const stateManager = new CallStateManager(trie, env.common, this.committed, env.flat);
    // A copy of its own: the EVM subscribes to its Common's `hardforkChanged` and never
    // unsubscribes, so on the shared one every VM this cache dropped stayed reachable, with
    // its state caches (about 9 MiB a minute under calls and one block a second).
    const vm = await createVM({
      common: env.common.copy(),
      stateManager,
      blockchain: env.blockchain,
    });
    return { vm, queue: new SerialQueue(), nodes };
  }
}

/**
 * Runs the request once with `gasLimit` on the state after `env.block`, discarding its writes;
 * `onStep`, when given, sees every opcode before it runs.
 * Throws `TransactionRejectedError` when the transaction is invalid (e.g. intrinsic gas too low).
 */
export async function runOnce(
  env: CallEnvironment,
  request: CallRequest,
  gasLimit: bigint,
  onStep?: (step: InterpreterStep) => void,
): Promise<RunTxResult> {
  const block = blockOf(env, request, hasFee(request), gasLimit);
  return runOn(env, request, async (vm) => {
    if (onStep !== undefined) vm.evm.events!.on('step', onStep);
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
    } finally {
      if (onStep !== undefined) vm.evm.events!.off('step', onStep);
    }
  });
}

/**
 * The block a call runs in: the selected block's (`CallVmCache.blockFor`), or a new one with
 * the request's block overrides.
 */
function blockOf(
  env: CallEnvironment,
  request: CallRequest,
  withFee: boolean,
  gasLimit: bigint,
): Block {
  const overrides = request.blockOverrides;
  return overrides === undefined
    ? env.vms.blockFor(env, withFee, gasLimit)
    : overriddenCallBlock(env.common, env.block.header, overrides, withFee, gasLimit);
}

/**
 * Runs `task` on the VM for `env`'s state with the request's state overrides written in: inside
 * the checkpoint every call's state writes are reverted from, so they go with it. With block
 * overrides, BLOCKHASH of a block the chain does not have answers zero for the run.
 */
async function runOn<T>(
  env: CallEnvironment,
  request: CallRequest,
  task: (vm: VM) => Promise<T>,
): Promise<T> {
  const { stateOverrides, blockOverrides } = request;
  if (stateOverrides === undefined && blockOverrides === undefined) {
    return env.vms.run(env, task);
  }
  return env.vms.run(env, async (vm) => {
    // The VM's own EVM, whose BLOCKHASH source is read as each message starts.
    const evm = vm.evm as EVM;
    const blockchain = evm.blockchain;
    let unroute = () => {};
    try {
      if (stateOverrides !== undefined) unroute = await applyStateOverrides(vm, stateOverrides);
      if (blockOverrides !== undefined) evm.blockchain = zeroForMissingBlocks(blockchain);
      return await task(vm);
    } finally {
      unroute();
      evm.blockchain = blockchain;
    }
  });
}

export function callGasLimit(env: CallEnvironment, request: CallRequest): bigint {
  return request.gas !== undefined && request.gas < env.gasCap ? request.gas : env.gasCap;
}

/** Whether the gas cap, rather than the caller's own gas, limits the request. */
function cappedByGasCap(env: CallEnvironment, request: CallRequest): boolean {
  return request.gas === undefined || request.gas > env.gasCap;
}

/** What a call that ran out of gas is told, when the gas cap was the limit it hit. */
function capNote(env: CallEnvironment, request: CallRequest): string {
  return cappedByGasCap(env, request)
    ? ` (gas limited to ${env.gasCap} by --json-rpc.gas-cap)`
    : '';
}

function throwIfReverted(result: RunTxResult): void {
  if (result.execResult.exceptionError?.error === 'revert') {
    const data = result.execResult.returnValue;
    throw new ExecutionRevertedError(bytesToHex(data), decodeRevertReason(data));
  }
}

/** An optional address in a key: 'n', or 'a' and its 20 bytes, so no two readings are alike. */
function addressKey(address: Address | undefined): string {
  return address === undefined ? 'n' : `a${latin1Key(address.bytes)}`;
}

/**
 * The key of a call's outcome, or undefined when its input is too large to keep. Made for every
 * call, most of which are not asked again, so it is built cheaply: the block's part is kept,
 * and every part reads back in one way (fixed lengths, numbers between separators, data last).
 */
function outcomeKey(env: CallEnvironment, request: CallRequest): string | undefined {
  const { data } = request;
  if (data !== undefined && data.length > CACHED_CALL_MAX_BYTES) return undefined;
  // Calls with an access list or authorizations are rare, and the list would make the key as
  // large as data; overrides change the state and the block, which the key takes from the
  // block hash alone.
  if (
    request.accessList !== undefined ||
    request.authorizationList !== undefined ||
    request.stateOverrides !== undefined ||
    request.blockOverrides !== undefined
  ) {
    return undefined;
  }
  const { gas, gasPrice, maxFeePerGas, maxPriorityFeePerGas, value, nonce } = request;
  return (
    env.vms.blockKey(env.block) +
    addressKey(request.from) +
    addressKey(request.to) +
    `${gas}|${gasPrice}|${maxFeePerGas}|${maxPriorityFeePerGas}|${value}|${nonce}|` +
    (data === undefined ? 'n' : `d${latin1Key(data)}`)
  );
}

function outcomeSize(outcome: CallOutcome): number {
  return 'reverted' in outcome ? outcome.reverted.length : outcome.result.returnData.length;
}

/**
 * Runs a call on this thread. A call with an access list or authorizations runs as the
 * transaction it stands for even without fees: the list's intrinsic gas is charged, its entries
 * start warm and its authorizations are applied, exactly as `runTx` does for a transaction
 * (geth counts all of them in a call's gas too).
 */
export const runCall: CallRunner = (env, request) =>
  hasFee(request) || request.accessList !== undefined || request.authorizationList !== undefined
    ? runTransactionCall(env, request)
    : runFeelessCall(env, request);

/**
 * Executes a call through `run`; reverts throw `ExecutionRevertedError` with the revert data.
 * The outcome of a small call is kept, and the same request at the same block is answered from
 * it without running.
 */
export async function executeCall(
  env: CallEnvironment,
  request: CallRequest,
  run: CallRunner = runCall,
): Promise<CallResult> {
  const key = outcomeKey(env, request);
  let outcome = key === undefined ? undefined : env.vms.outcomes.get(key);
  if (outcome === undefined) {
    outcome = await run(env, request);
    if (key !== undefined && outcomeSize(outcome) <= CACHED_CALL_MAX_BYTES) {
      env.vms.outcomes.set(key, outcome);
    }
  }
  if ('reverted' in outcome) {
    throw new ExecutionRevertedError(
      bytesToHex(outcome.reverted),
      decodeRevertReason(outcome.reverted),
    );
  }
  return outcome.result;
}

/** Balance of `address` in the state after `env.block`, with the request's overrides. */
async function balanceOf(
  env: CallEnvironment,
  request: CallRequest,
  address: Address,
): Promise<bigint> {
  return runOn(
    env,
    request,
    async (vm) => (await vm.stateManager.getAccount(address))?.balance ?? 0n,
  );
}

/** The price the sender must be able to pay per gas: the fee cap, as geth checks it. */
export function feeCap(request: CallRequest): bigint {
  return request.maxFeePerGas ?? request.maxPriorityFeePerGas ?? request.gasPrice ?? 0n;
}

/**
 * geth's checks of a call against the sender's balance (a call without `from` is sent by the
 * zero address): the value must be affordable even without fees ("insufficient funds for
 * transfer"), and with fees `gas × fee cap + value` too. Without them a call could move value
 * the sender does not have, which a transaction never can.
 */
export function refuseUnaffordable(
  env: CallEnvironment,
  request: CallRequest,
  gasLimit: bigint,
): Promise<bigint> {
  return refuseUnaffordableWith((address) => balanceOf(env, request, address), request, gasLimit);
}

/** {@link refuseUnaffordable} against balances read by `balanceOf` (a state with overrides). */
export async function refuseUnaffordableWith(
  balanceOf: (address: Address) => Promise<bigint>,
  request: CallRequest,
  gasLimit: bigint,
): Promise<bigint> {
  const value = request.value ?? 0n;
  if (value === 0n && !hasFee(request)) return 0n;
  const sender = request.from ?? createZeroAddress();
  const balance = await balanceOf(sender);
  if (value > balance) {
    throw new TransactionRejectedError(
      `insufficient funds for transfer: address ${checksumAddress(sender)}`,
    );
  }
  const cost = gasLimit * feeCap(request) + value;
  if (cost > balance) {
    throw new TransactionRejectedError(
      `insufficient funds for gas * price + value: address ${checksumAddress(sender)} have ${balance} want ${cost}`,
    );
  }
  return balance;
}

/** A call run as a transaction; with fee fields the sender must afford gas and value. */
async function runTransactionCall(
  env: CallEnvironment,
  request: CallRequest,
): Promise<CallOutcome> {
  await refuseUnaffordable(env, request, callGasLimit(env, request));
  const result = await runOnce(env, request, callGasLimit(env, request));
  return outcomeOf(result.execResult, result.totalGasSpent, capNote(env, request));
}

/** `outOfGasNote` is added to an out-of-gas error, to say which limit was hit. */
function outcomeOf(execResult: ExecResult, gasUsed: bigint, outOfGasNote: string): CallOutcome {
  const error = execResult.exceptionError?.error;
  if (error === 'revert') return { reverted: execResult.returnValue };
  const shown =
    error === EVMError.errorMessages.OUT_OF_GAS ? error + outOfGasNote : error && gethError(error);
  return { result: { returnData: execResult.returnValue, gasUsed, error: shown } };
}

/**
 * Gives the EVM's journal the access list a transaction starts with (EIP-2929: the origin, the
 * recipient and the precompiles are warm; EIP-3651: the coinbase too), as `runTx` would. The
 * journal outlives a message on a reused VM, so each call also starts from an empty one and
 * clears it afterwards: otherwise what one call touched would be warm, and cheaper, in the
 * next, and the journal would grow with every call.
 */
function warmAsTransactionStart(
  vm: VM,
  caller: Address,
  to: Address | undefined,
  block: Block,
): void {
  const { journal } = vm.evm;
  journal.cleanJournal();
  // Unprefixed, as the journal keeps them: a prefixed address it strips after a regular expression.
  for (const address of vm.evm.precompiles.keys()) journal.addAlwaysWarmAddress(address);
  journal.addAlwaysWarmAddress(unprefixedHex(caller.bytes));
  if (to !== undefined) journal.addAlwaysWarmAddress(unprefixedHex(to.bytes));
  journal.addAlwaysWarmAddress(unprefixedHex(block.header.coinbase.bytes));
}

/**
 * A call without fee fields runs as a plain EVM message (no transaction object to build and
 * validate: that cost more than executing a typical view function). The gas cap still bounds it.
 */
async function runFeelessCall(env: CallEnvironment, request: CallRequest): Promise<CallOutcome> {
  const gasLimit = callGasLimit(env, request);
  await refuseUnaffordable(env, request, gasLimit);
  const block = blockOf(env, request, false, gasLimit);
  const caller = request.from ?? createZeroAddress();
  const data = request.data ?? new Uint8Array();
  const executionGas = gasAfterIntrinsic(env.common, data, request.to === undefined, gasLimit);
  const result = await runOn(env, request, async (vm) => {
    const { journal } = vm.evm;
    warmAsTransactionStart(vm, caller, request.to, block);
    try {
      return await vm.evm.runCall({
        block,
        caller,
        origin: caller,
        to: request.to,
        value: request.value ?? 0n,
        data,
        gasLimit: executionGas,
        gasPrice: 0n,
        skipBalance: true,
      });
    } finally {
      journal.cleanJournal();
    }
  });
  const { execResult } = result;
  const intrinsic = gasLimit - executionGas;
  return outcomeOf(execResult, intrinsic + execResult.executionGasUsed, capNote(env, request));
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

/** Whether `address` holds no code in the state after `env.block`, with the overrides. */
async function hasNoCode(
  env: CallEnvironment,
  request: CallRequest,
  address: Address,
): Promise<boolean> {
  return runOn(env, request, async (vm) => (await vm.stateManager.getCode(address)).length === 0);
}

/**
 * Smallest gas limit with which the request succeeds, found by binary search like geth.
 * Reverts throw `ExecutionRevertedError`; a request that fails even with the cap throws
 * `TransactionRejectedError` ("gas required exceeds allowance (N)" or the EVM error).
 */
export async function estimateGas(env: CallEnvironment, request: CallRequest): Promise<bigint> {
  let hi = callGasLimit(env, request);
  const blockGasLimit = request.blockOverrides?.gasLimit ?? env.block.header.gasLimit;
  if (request.gas === undefined && blockGasLimit < hi) hi = blockGasLimit;
  // The gas the caller named must be affordable; without it, as geth does, a fee-paying
  // estimate searches only up to the gas the sender can pay for.
  const price = feeCap(request);
  const balance = await refuseUnaffordable(env, request, request.gas === undefined ? 0n : hi);
  if (price > 0n) {
    const allowance = (balance - (request.value ?? 0n)) / price;
    if (allowance < hi) hi = allowance;
  }
  // As geth does: a transfer without data to an account without code is tried with its
  // intrinsic gas first (21000, and its access list's), which the search below would
  // overshoot by up to its 1.5% tolerance.
  if ((request.data?.length ?? 0) === 0 && request.to !== undefined) {
    const intrinsic = buildTx(env, request, hi).getIntrinsicGas();
    if (
      hi >= intrinsic &&
      (await hasNoCode(env, request, request.to)) &&
      (await succeeds(env, request, intrinsic))
    ) {
      return intrinsic;
    }
  }
  const allowanceNote =
    hi === env.gasCap && cappedByGasCap(env, request) ? ' (--json-rpc.gas-cap)' : '';
  const first = await runOnce(env, request, hi);
  throwIfReverted(first);
  const failure = first.execResult.exceptionError?.error;
  if (failure !== undefined) {
    throw new TransactionRejectedError(
      /out of gas/i.test(failure)
        ? `gas required exceeds allowance (${hi})${allowanceNote}`
        : failure,
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
