/**
 * The EVM's events as the tracers use them. EthereumJS awaits a listener that takes a second
 * (`resolve`) parameter and calls any other without waiting; tracers that must read state during
 * a step get the awaited form through {@link listenToEvm}.
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';

export interface EvmListeners {
  step?: (step: InterpreterStep) => void | Promise<void>;
  beforeMessage?: (message: Message) => void;
  afterMessage?: (result: EVMResult) => void;
  newContract?: (event: { address: Address; code: Uint8Array }) => void;
}

/** Subscribes `listeners` to `evm`'s events; returns what unsubscribes them. */
export function listenToEvm(evm: EVM, listeners: EvmListeners): () => void {
  const subscribed: Array<[string, (...args: never[]) => void]> = [];
  const { step, ...others } = listeners;
  if (step !== undefined) {
    const awaited = (event: InterpreterStep, resolve: () => void) => {
      const pending = step(event);
      if (pending === undefined) resolve();
      else pending.then(resolve, resolve);
    };
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
