/**
 * The call frames of one transaction, recorded from the EVM's events: what the call tracer,
 * the flat call tracer and the 4byte tracer report, each in its own form.
 *
 * EthereumJS's messages do not say which opcode made them (a DELEGATECALL and a CALLCODE both
 * run with the caller's address as `to`), so the recorder remembers the last opcode stepped at
 * each depth and names a message by the opcode of its parent's frame. A SELFDESTRUCT makes no
 * message; it is recorded as geth records it, a frame of its own without gas.
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { listenToEvm, memorySlice, stackItem } from './evm-events.js';
import { gethError } from '../chain/evm-errors.js';

export type FrameType =
  'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

export interface FrameLog {
  address: Address;
  topics: Uint8Array[];
  data: Uint8Array;
  /** How many calls of the frame came before the log. */
  position: number;
}

export interface CallFrame {
  type: FrameType;
  from: Address;
  to?: Address;
  input: Uint8Array;
  gas: bigint;
  gasUsed: bigint;
  /** Absent for STATICCALL, as in geth. */
  value?: bigint;
  output: Uint8Array;
  /** geth's wording. */
  error?: string;
  /** Whether `to` is a precompile. */
  precompile: boolean;
  calls: CallFrame[];
  logs: FrameLog[];
}

const OPCODE_TYPES: Record<number, FrameType> = {
  0xf0: 'CREATE',
  0xf1: 'CALL',
  0xf2: 'CALLCODE',
  0xf4: 'DELEGATECALL',
  0xf5: 'CREATE2',
  0xfa: 'STATICCALL',
};
const LOG0 = 0xa0;
const LOG4 = 0xa4;
const SELFDESTRUCT = 0xff;

interface OpenFrame {
  frame: CallFrame;
  /** The address whose storage and balance the frame runs with. */
  context?: Address;
}

function toAddress(word: bigint): Address {
  return new Address(setLengthLeft(bigIntToBytes(word), 32).subarray(12));
}

export class CallFrameRecorder {
  private readonly open: OpenFrame[] = [];
  /** The last opcode stepped at each depth. */
  private readonly opAt: number[] = [];
  private root: CallFrame | undefined;

  /** `from`: the sender of the transaction whose frames are recorded. */
  constructor(
    private readonly from: Address,
    private readonly options: { logs: boolean },
  ) {}

  /** The top frame, once the transaction ran. */
  get top(): CallFrame | undefined {
    return this.root;
  }

  attach(evm: EVM): () => void {
    return listenToEvm(evm, {
      beforeMessage: (message) => this.enter(evm, message),
      afterMessage: (result) => this.exit(result),
      newContract: ({ address }) => {
        const current = this.open.at(-1);
        if (current === undefined) return;
        current.context = address;
        current.frame.to = address;
      },
      step: (step, opcode) => this.step(step, opcode),
    });
  }

  private enter(evm: EVM, message: Message): void {
    const parent = this.open.at(-1);
    const depth = message.depth;
    const type: FrameType =
      depth === 0 || parent === undefined
        ? message.to === undefined
          ? 'CREATE'
          : 'CALL'
        : (OPCODE_TYPES[this.opAt[depth - 1]] ?? 'CALL');
    const byCode = type === 'DELEGATECALL' || type === 'CALLCODE';
    const to = byCode ? message.codeAddress : message.to;
    const frame: CallFrame = {
      type,
      from: parent === undefined ? this.from : parent.context!,
      to,
      // Copied: the message's data is a view of its caller's memory, which changes later.
      input: message.data.slice(),
      gas: message.gasLimit,
      gasUsed: 0n,
      value: type === 'STATICCALL' ? undefined : message.value,
      output: new Uint8Array(),
      precompile: to !== undefined && evm.precompiles.has(to.toString().slice(2)),
      calls: [],
      logs: [],
    };
    if (parent === undefined) this.root = frame;
    else parent.frame.calls.push(frame);
    this.open.push({ frame, context: byCode ? parent!.context : message.to });
  }

  private exit(result: EVMResult): void {
    const open = this.open.pop();
    if (open === undefined) return;
    const { frame } = open;
    const { execResult } = result;
    frame.gasUsed = execResult.executionGasUsed;
    frame.output = execResult.returnValue.slice();
    if (result.createdAddress !== undefined) frame.to = result.createdAddress;
    const error = execResult.exceptionError?.error;
    if (error !== undefined) frame.error = gethError(error, this.opAt[this.open.length]);
  }

  /** Synchronous except at a SELFDESTRUCT, which reads the balance it sends. */
  private step(step: InterpreterStep, op: number): Promise<void> | undefined {
    this.opAt[step.depth] = op;
    const current = this.open.at(-1);
    if (current === undefined) return;
    if (this.options.logs && op >= LOG0 && op <= LOG4) {
      const topics = Array.from({ length: op - LOG0 }, (_, index) =>
        setLengthLeft(bigIntToBytes(stackItem(step, 2 + index)), 32),
      );
      current.frame.logs.push({
        address: current.context!,
        topics,
        data: memorySlice(step.memory, stackItem(step, 0), stackItem(step, 1)),
        position: current.frame.calls.length,
      });
    } else if (op === SELFDESTRUCT) {
      return this.selfdestruct(step, current);
    }
    return undefined;
  }

  private async selfdestruct(step: InterpreterStep, current: OpenFrame): Promise<void> {
    const balance = (await step.stateManager.getAccount(current.context!))?.balance ?? 0n;
    current.frame.calls.push({
      type: 'SELFDESTRUCT',
      from: current.context!,
      to: toAddress(stackItem(step, 0)),
      input: new Uint8Array(),
      gas: 0n,
      gasUsed: 0n,
      value: balance,
      output: new Uint8Array(),
      precompile: false,
      calls: [],
      logs: [],
    });
  }
}
