/**
 * geth's `callTracer`: the tree of call frames, with `onlyTopCall` and `withLog`.
 * Frames that failed lose their logs (and their children theirs), as in geth; a failed frame
 * keeps its output only when it reverted, with the decoded `revertReason` when there is one.
 */
import type { EVM } from '@ethereumjs/evm';
import type { RunTxResult } from '@ethereumjs/vm';
import { CallFrameRecorder, type CallFrame } from './call-frames.js';
import { revertReason } from '../chain/evm-errors.js';
import { address, data, quantity } from './json-hex.js';
import type { CallTracerOptions } from './trace-options.js';
import type { TracedTx, TxTracer } from './tracer.js';

const REVERTED = 'execution reverted';

function formatLogs(frame: CallFrame): Record<string, unknown>[] {
  return frame.logs.map((log) => ({
    address: address(log.address),
    topics: log.topics.map(data),
    data: data(log.data),
    position: quantity(log.position),
  }));
}

/** One frame in geth's field order (type, from, gas, gasUsed, to, input, output, error, ...). */
export function formatCallFrame(
  frame: CallFrame,
  options: CallTracerOptions,
  parentFailed = false,
): Record<string, unknown> {
  const failed = parentFailed || frame.error !== undefined;
  const created = frame.type === 'CREATE' || frame.type === 'CREATE2';
  const out: Record<string, unknown> = {
    type: frame.type,
    from: address(frame.from),
    gas: quantity(frame.gas),
    gasUsed: quantity(frame.gasUsed),
  };
  if (frame.to !== undefined && !(created && frame.error !== undefined)) {
    out.to = address(frame.to);
  }
  out.input = data(frame.input);
  if (frame.output.length > 0 && (frame.error === undefined || frame.error === REVERTED)) {
    out.output = data(frame.output);
  }
  if (frame.error !== undefined) {
    out.error = frame.error;
    const reason = frame.error === REVERTED ? revertReason(frame.output) : undefined;
    if (reason !== undefined) out.revertReason = reason;
  }
  if (!options.onlyTopCall && frame.calls.length > 0) {
    out.calls = frame.calls.map((call) => formatCallFrame(call, options, failed));
  }
  if (options.withLog && !failed && frame.logs.length > 0) out.logs = formatLogs(frame);
  if (frame.value !== undefined) out.value = quantity(frame.value);
  return out;
}

/** The top frame as geth reports it: the transaction's gas limit and its receipt's gas used. */
export function topFrame(
  recorder: CallFrameRecorder,
  tx: TracedTx,
  outcome: RunTxResult,
): CallFrame {
  const top = recorder.top;
  if (top === undefined) throw new Error('the transaction ran no message');
  return { ...top, gas: tx.gasLimit, gasUsed: outcome.totalGasSpent };
}

export class CallTracer implements TxTracer {
  private readonly recorder: CallFrameRecorder;

  constructor(
    private readonly tx: TracedTx,
    private readonly options: CallTracerOptions,
  ) {
    this.recorder = new CallFrameRecorder(tx.from, { logs: options.withLog });
  }

  attach(evm: EVM): () => void {
    return this.recorder.attach(evm);
  }

  result(outcome: RunTxResult): unknown {
    return formatCallFrame(topFrame(this.recorder, this.tx, outcome), this.options);
  }
}
