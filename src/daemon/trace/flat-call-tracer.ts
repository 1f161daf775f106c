/**
 * geth's `flatCallTracer`: the call tree in Parity's flat form (one entry per frame with its
 * `traceAddress`), which explorers built for OpenEthereum read. Options `convertParityErrors`
 * and `includePrecompiles` as in geth.
 */
import type { EVM } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import type { RunTxResult } from '@ethereumjs/vm';
import { CallFrameRecorder, type CallFrame } from './call-frames.js';
import { topFrame } from './call-tracer.js';
import { address, data, quantity } from './json-hex.js';
import type { FlatCallTracerOptions } from './trace-options.js';
import type { TracedTx, TxTracer } from './tracer.js';

const PARITY_ERRORS: Record<string, string> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'gas uint64 overflow': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'precompiled failed': 'Built-in failed',
  'invalid input length': 'Built-in failed',
};

const PARITY_ERROR_PREFIXES: Array<[string, string]> = [
  ['out of gas:', 'Out of gas'],
  ['invalid opcode:', 'Bad instruction'],
  ['stack underflow', 'Stack underflow'],
];

function parityError(error: string): string {
  return (
    PARITY_ERRORS[error] ??
    PARITY_ERROR_PREFIXES.find(([prefix]) => error.startsWith(prefix))?.[1] ??
    error
  );
}

function action(frame: CallFrame): Record<string, unknown> {
  const value = quantity(frame.value ?? 0n);
  switch (frame.type) {
    case 'SELFDESTRUCT':
      return { address: address(frame.from), balance: value, refundAddress: address(frame.to!) };
    case 'CREATE':
    case 'CREATE2':
      return {
        creationMethod: frame.type.toLowerCase(),
        from: address(frame.from),
        gas: quantity(frame.gas),
        init: data(frame.input),
        value,
      };
    default:
      return {
        callType: frame.type.toLowerCase(),
        from: address(frame.from),
        gas: quantity(frame.gas),
        input: data(frame.input),
        to: address(frame.to!),
        value,
      };
  }
}

function result(frame: CallFrame): Record<string, unknown> | undefined {
  if (frame.type === 'SELFDESTRUCT') return undefined;
  if (frame.error !== undefined && frame.error !== 'execution reverted') return undefined;
  if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
    return {
      ...(frame.to === undefined ? {} : { address: address(frame.to) }),
      code: data(frame.output),
      gasUsed: quantity(frame.gasUsed),
    };
  }
  return { gasUsed: quantity(frame.gasUsed), output: data(frame.output) };
}

export class FlatCallTracer implements TxTracer {
  private readonly recorder: CallFrameRecorder;

  constructor(
    private readonly tx: TracedTx,
    private readonly options: FlatCallTracerOptions,
  ) {
    this.recorder = new CallFrameRecorder(tx.from, { logs: false });
  }

  attach(evm: EVM): () => void {
    return this.recorder.attach(evm);
  }

  result(outcome: RunTxResult): unknown {
    const entries: Record<string, unknown>[] = [];
    this.flatten(topFrame(this.recorder, this.tx, outcome), [], entries);
    return entries;
  }

  /** Calls and static calls to precompiles are left out unless `includePrecompiles`. */
  private shown(frame: CallFrame): boolean {
    return (
      this.options.includePrecompiles ||
      !frame.precompile ||
      (frame.type !== 'CALL' && frame.type !== 'STATICCALL')
    );
  }

  private flatten(frame: CallFrame, traceAddress: number[], out: Record<string, unknown>[]): void {
    const calls = frame.calls.filter((call) => this.shown(call));
    const entry: Record<string, unknown> = {
      action: action(frame),
      blockHash: bytesToHex(this.tx.blockHash),
      blockNumber: Number(this.tx.blockNumber),
    };
    if (frame.error !== undefined) {
      entry.error = this.options.convertParityErrors ? parityError(frame.error) : frame.error;
    }
    const outcome = result(frame);
    if (outcome !== undefined) entry.result = outcome;
    Object.assign(entry, {
      subtraces: calls.length,
      traceAddress,
      transactionHash: this.tx.hash === undefined ? null : bytesToHex(this.tx.hash),
      transactionPosition: this.tx.index,
      type:
        frame.type === 'SELFDESTRUCT'
          ? 'suicide'
          : frame.type === 'CALL' ||
              frame.type === 'STATICCALL' ||
              frame.type === 'DELEGATECALL' ||
              frame.type === 'CALLCODE'
            ? 'call'
            : 'create',
    });
    out.push(entry);
    calls.forEach((call, index) => this.flatten(call, [...traceAddress, index], out));
  }
}
