/**
 * The EVM's events as the tracers use them. EthereumJS awaits a listener that takes a second
 * (`resolve`) parameter and calls any other without waiting; tracers that must read state during
 * a step get the awaited form through {@link listenToEvm}.
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';

export interface EvmListeners {
  /** `opcode` is the byte the step executes (see {@link listenToEvm}). */
  step?: (step: InterpreterStep, opcode: number) => void | Promise<void>;
  beforeMessage?: (message: Message) => void;
  afterMessage?: (result: EVMResult) => void;
  newContract?: (event: { address: Address; code: Uint8Array }) => void;
}

/** The opcode EthereumJS reports for every byte it does not define. */
const INVALID = 0xfe;

/**
 * Subscribes `listeners` to `evm`'s events; returns what unsubscribes them. A step's listener is
 * told the byte it executes, which for an undefined opcode is not the 0xfe EthereumJS reports: it
 * is read from the code of the step's message (loaded into the message once it runs).
 */
export function listenToEvm(evm: EVM, listeners: EvmListeners): () => void {
  const subscribed: Array<[string, (...args: never[]) => void]> = [];
  const { step, ...others } = listeners;
  if (step !== undefined) {
    const running: Message[] = [];
    const opcodeOf = (event: InterpreterStep): number => {
      const code = running[event.depth]?.code;
      if (event.opcode.code !== INVALID || !(code instanceof Uint8Array)) return event.opcode.code;
      return code[event.pc] ?? INVALID;
    };
    const entered = (message: Message) => {
      running[message.depth] = message;
    };
    const awaited = (event: InterpreterStep, resolve: () => void) => {
      const pending = step(event, opcodeOf(event));
      if (pending === undefined) resolve();
      else pending.then(resolve, resolve);
    };
    subscribed.push(['beforeMessage', entered as (...args: never[]) => void]);
    subscribed.push(['step', awaited as (...args: never[]) => void]);
  }
  for (const [name, listener] of Object.entries(others)) {
    if (listener !== undefined) subscribed.push([name, listener as (...args: never[]) => void]);
  }
  const events = evm.events as unknown as {
    on(name: string, listener: (...args: never[]) => void): void;
    off(name: string, listener: (...args: never[]) => void): void;
  };
  for (const [name, listener] of subscribed) events.on(name, listener);
  return () => {
    for (const [name, listener] of subscribed) events.off(name, listener);
  };
}

/** `size` bytes of `memory` from `offset`, zero beyond its end (as the EVM would expand it). */
export function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  const out = new Uint8Array(Number(size));
  if (offset < BigInt(memory.length)) {
    const start = Number(offset);
    out.set(memory.subarray(start, Math.min(memory.length, start + out.length)));
  }
  return out;
}

/** The stack item `fromTop` places below the top (0: the top). */
export function stackItem(step: InterpreterStep, fromTop: number): bigint {
  return step.stack[step.stack.length - 1 - fromTop];
}
