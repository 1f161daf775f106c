/**
 * geth's `4byteTracer`: how often each function selector was called, keyed
 * `<selector>-<size of the arguments>`. Calls to precompiles and contract creations carry no
 * selector and are not counted.
 */
import type { EVM } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import { CallFrameRecorder, type CallFrame } from './call-frames.js';
import type { TracedTx, TxTracer } from './tracer.js';

function count(frame: CallFrame, counts: Record<string, number>): void {
  const counted =
    frame.type !== 'CREATE' && frame.type !== 'CREATE2' && frame.type !== 'SELFDESTRUCT';
  if (counted && !frame.precompile && frame.input.length >= 4) {
    const key = `${bytesToHex(frame.input.subarray(0, 4))}-${frame.input.length - 4}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  for (const call of frame.calls) count(call, counts);
}

export class FourByteTracer implements TxTracer {
  private readonly recorder: CallFrameRecorder;

  constructor(tx: TracedTx) {
    this.recorder = new CallFrameRecorder(tx.from, { logs: false });
  }

  attach(evm: EVM): () => void {
    return this.recorder.attach(evm);
  }

  result(): unknown {
    const counts: Record<string, number> = {};
    if (this.recorder.top !== undefined) count(this.recorder.top, counts);
    return counts;
  }
}

/** geth's `noopTracer`: runs the transaction and answers an empty object. */
export class NoopTracer implements TxTracer {
  attach(): () => void {
    return () => {};
  }

  result(): unknown {
    return {};
  }
}
