/**
 * geth's default opcode logger: one `structLogs` entry per executed opcode, with the options
 * `disableStack`, `disableStorage`, `enableMemory`, `enableReturnData` and `limit`.
 *
 * Storage is what geth shows: per contract, the slots read (SLOAD: the value then held) and
 * written (SSTORE: the value stored) so far in the transaction. A failing opcode carries the
 * error of its frame; the return data is that of the frame's last finished call.
 */
import type { EVM, InterpreterStep, Message } from '@ethereumjs/evm';
import { bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { listenToEvm } from './evm-events.js';
import { gethError, undefinedOpcodeName } from '../chain/evm-errors.js';
import { data, quantity } from './json-hex.js';
import type { ResultBudget } from './result-budget.js';
import type { StructLoggerOptions } from './trace-options.js';
import type { TxTracer } from './tracer.js';

const SLOAD = 0x54;
const SSTORE = 0x55;
/** CALL, CALLCODE, DELEGATECALL, STATICCALL. */
const FORWARDING_CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
/** CALL and CALLCODE, which may carry value. */
const VALUE_CALLS = new Set([0xf1, 0xf2]);
const CALL_STIPEND = 2300n;

type StructLog = Record<string, unknown>;

/** A 32-byte word as geth writes storage and memory: 64 hex digits, no prefix. */
function bareWord(bytes: Uint8Array): string {
  return bytesToHex(setLengthLeft(bytes, 32)).slice(2);
}

function memoryWords(memory: Uint8Array): string[] {
  const words: string[] = [];
  for (let offset = 0; offset < memory.length; offset += 32) {
    words.push(
      bytesToHex(memory.subarray(offset, offset + 32))
        .slice(2)
        .padEnd(64, '0'),
    );
  }
  return words;
}

/** A step's JSON without its arrays: `pc`, `op`, `gas`, `gasCost`, `depth`, `refund`, punctuation. */
const STEP_CHARS = 100;
/** One storage slot in JSON: two quoted 64-digit words, a colon and a comma. */
const STORAGE_ENTRY_CHARS = 2 * 66 + 2;

/** About how long `log` is in JSON, without writing it (its storage is counted where it is set). */
function jsonLength(log: StructLog): number {
  let length = STEP_CHARS;
  for (const item of (log.stack as string[] | undefined) ?? []) length += item.length + 3;
  length += ((log.memory as string[] | undefined)?.length ?? 0) * 67;
  length += (log.returnData as string | undefined)?.length ?? 0;
  return length;
}

export class StructLogger implements TxTracer {
  private readonly logs: StructLog[] = [];
  /** Slots seen so far, per contract (address hex), as bare words. */
  private readonly storage = new Map<string, Map<string, string>>();
  /** Index of the last log of each depth, where a failing frame's error goes. */
  private readonly lastAt: number[] = [];
  /** Return data of the last finished call, per depth. */
  private readonly returnData: Uint8Array[] = [];

  constructor(
    private readonly options: StructLoggerOptions,
    private readonly budget: ResultBudget,
  ) {}

  attach(evm: EVM): () => void {
    return listenToEvm(evm, {
      step: (step, opcode) => this.step(step, opcode),
      beforeMessage: (message) => {
        this.returnData[message.depth] = new Uint8Array();
        if (message.depth > 0) this.chargeForwardedGas(message.depth - 1, message);
      },
      afterMessage: (result) => {
        const depth = this.returnData.length - 1;
        this.returnData.length = depth;
        if (depth > 0) this.returnData[depth - 1] = result.execResult.returnValue.slice();
        const error = result.execResult.exceptionError?.error;
        const last = this.lastAt[depth];
        if (error !== undefined && error !== 'revert' && last !== undefined) {
          const log = this.logs[last];
          if (log !== undefined && log.error === undefined && log.depth === depth + 1) {
            log.error = gethError(error, log.opcode as number);
          }
        }
        this.lastAt.length = depth;
      },
    });
  }

  /**
   * geth counts the gas a CALL-family opcode hands to its callee in the opcode's `gasCost`;
   * EthereumJS charges it apart from the opcode's fee. The stipend a value transfer adds is free.
   */
  private chargeForwardedGas(depth: number, message: Message): void {
    const log = this.logs[this.lastAt[depth] ?? -1];
    if (log === undefined || !FORWARDING_CALLS.has(log.opcode as number)) return;
    const withStipend = message.value > 0n && VALUE_CALLS.has(log.opcode as number);
    const forwarded = message.gasLimit - (withStipend ? CALL_STIPEND : 0n);
    log.gasCost = (log.gasCost as number) + Number(forwarded);
  }

  result(outcome: RunTxResult): unknown {
    const failed = outcome.execResult.exceptionError !== undefined;
    const reverted = outcome.execResult.exceptionError?.error === 'revert';
    return {
      gas: Number(outcome.totalGasSpent),
      failed,
      returnValue: data(failed && !reverted ? new Uint8Array() : outcome.execResult.returnValue),
      structLogs: this.logs.map(({ opcode: _opcode, ...log }) => log),
    };
  }

  private step(step: InterpreterStep, opcode: number): Promise<void> | undefined {
    const { limit } = this.options;
    if (limit !== 0 && this.logs.length >= limit) return undefined;
    // Thrown here, the error ends the transaction's run: nothing more would be kept.
    this.budget.check();
    const log: StructLog = {
      pc: step.pc,
      op: opcode === step.opcode.code ? step.opcode.name : undefinedOpcodeName(opcode),
      gas: Number(step.gasLeft),
      // `dynamicFee` is the opcode's whole cost (base fee included) when it has one; a call's
      // forwarded gas is added when its message starts.
      gasCost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
      depth: step.depth + 1,
      opcode,
    };
    if (!this.options.disableStack) log.stack = step.stack.map((item) => quantity(item));
    const returned = this.returnData[step.depth];
    if (this.options.enableReturnData && returned !== undefined && returned.length > 0) {
      log.returnData = data(returned);
    }
    if (this.options.enableMemory) log.memory = memoryWords(step.memory);
    if (step.gasRefund > 0n) log.refund = Number(step.gasRefund);
    this.budget.spend(jsonLength(log));
    this.lastAt[step.depth] = this.logs.length;
    this.logs.push(log);
    const op = step.opcode.code;
    if (this.options.disableStorage || (op !== SLOAD && op !== SSTORE)) return undefined;
    return this.recordStorage(step, log);
  }

  private async recordStorage(step: InterpreterStep, log: StructLog): Promise<void> {
    const key = setLengthLeft(bigIntToBytes(step.stack[step.stack.length - 1]), 32);
    const value =
      step.opcode.code === SSTORE
        ? bigIntToBytes(step.stack[step.stack.length - 2])
        : await step.stateManager.getStorage(step.address, key);
    const contract = step.address.toString();
    let slots = this.storage.get(contract);
    if (slots === undefined) this.storage.set(contract, (slots = new Map()));
    slots.set(bareWord(key), bareWord(value));
    log.storage = Object.fromEntries(slots);
    this.budget.spend(slots.size * STORAGE_ENTRY_CHARS);
  }
}
