/**
 * `traceTransfers` of eth_simulateV1, as geth gives it: every movement of ether in a call
 * appears among its logs as an ERC-20 `Transfer(from, to, value)` log of the made-up address
 * 0xEeee…EEeE, in the order it happened relative to the real logs. A transfer is any frame that
 * moves value: the call itself, CALL and CALLCODE with value, creations with an endowment and
 * SELFDESTRUCT's balance (not DELEGATECALL, which carries its caller's value without moving it).
 * A frame that fails takes its transfer and its logs with it, as its real logs go.
 *
 * The frames are recorded with the call tracer's recorder (`../trace/call-frames.ts`), whose
 * logs know how many of the frame's calls came before them.
 */
import type { EVM } from '@ethereumjs/evm';
import { bigIntToBytes, hexToBytes, setLengthLeft, type Address } from '@ethereumjs/util';
import type { Log } from '@ethereumjs/evm';
import { CallFrameRecorder, type CallFrame } from '../trace/call-frames.js';

/** The address geth's transfer logs carry (ERC-7528's stand-in for ether). */
export const TRANSFER_LOG_ADDRESS = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = hexToBytes(
  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
);

const word = (value: bigint): Uint8Array => setLengthLeft(bigIntToBytes(value), 32);

function transferLog(from: Address, to: Address, value: bigint): Log {
  return [
    TRANSFER_LOG_ADDRESS,
    [TRANSFER_TOPIC, setLengthLeft(from.bytes, 32), setLengthLeft(to.bytes, 32)],
    word(value),
  ];
}

/** The logs of `frame` and the frames below it, transfers included, in execution order. */
function logsOf(frame: CallFrame, into: Log[]): void {
  if (frame.error !== undefined) return;
  const { value, to } = frame;
  if (frame.type !== 'DELEGATECALL' && value !== undefined && value > 0n && to !== undefined) {
    into.push(transferLog(frame.from, to, value));
  }
  let next = 0;
  for (const [index, call] of frame.calls.entries()) {
    for (; next < frame.logs.length && frame.logs[next].position <= index; next++) {
      const log = frame.logs[next];
      into.push([log.address.bytes, log.topics, log.data]);
    }
    logsOf(call, into);
  }
  for (const log of frame.logs.slice(next)) into.push([log.address.bytes, log.topics, log.data]);
}

/** Records one call's frames on `evm`; `detach` ends the recording. */
export class TransferLogRecorder {
  private readonly recorder: CallFrameRecorder;
  readonly detach: () => void;

  constructor(evm: EVM, sender: Address) {
    this.recorder = new CallFrameRecorder(sender, { logs: true });
    this.detach = this.recorder.attach(evm);
  }

  /** The call's logs with its transfers, once it ran; none if it failed. */
  logs(): Log[] {
    const logs: Log[] = [];
    if (this.recorder.top !== undefined) logsOf(this.recorder.top, logs);
    return logs;
  }
}
