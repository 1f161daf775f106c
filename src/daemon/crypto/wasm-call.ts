/**
 * One call into the @polkadot/wasm-crypto WebAssembly that leaves the module as it found it,
 * whether the call returns or traps.
 *
 * The module's Rust functions `panic!` on every input they refuse (a signature that recovers no
 * key, a secret key out of range, a wrong length), and panics in that build abort: the
 * WebAssembly executes `unreachable` and the call throws a `RuntimeError`. A trap skips the code
 * that ends a call normally, so two things are never given back: the shadow-stack space of the
 * frames on the way down (the module's `__stack_pointer` global, 544 bytes for a recovery) and
 * the input buffers the Rust side would have freed on return. The package's own wrappers call
 * the exports bare, so every refused call lowered the stack pointer for good; after about 1 900
 * refusals it left the 1 MiB stack region and every later call, valid or not, failed with
 * "memory access out of bounds". This module keeps both for the caller: it notes the stack
 * pointer before the call and puts it back after a trap, and frees the inputs it allocated. That
 * is all the state a trapped call leaves behind that matters: the module's memory stays the same
 * size however many calls trap, and later results are unchanged (test/unit/wasm-crypto.test.ts).
 * The Rust runtime's panic counter does keep growing, which none of these functions reads.
 */
import { bridge } from '@polkadot/wasm-crypto';
import { InvalidInputError } from '../../shared/errors.js';

/** The exports used here, as wasm-bindgen generates them for the module. */
interface WasmCryptoExports {
  memory: { buffer: ArrayBuffer };
  __wbindgen_malloc(size: number): number;
  __wbindgen_free(pointer: number, size: number): void;
  /** Moves the shadow-stack pointer by `delta` bytes and returns its new value. */
  __wbindgen_add_to_stack_pointer(delta: number): number;
}

/** An export of the module that writes its result's (pointer, length) to {@link RESULT_SLOT}. */
type WasmExport<K extends string> = Record<K, (slot: number, ...args: number[]) => void>;

/**
 * Where the exports write the (pointer, length) of the byte vector they return: the address the
 * package's wrappers use too, in the lowest bytes of memory, which the stack (growing down from
 * 1 MiB) does not reach while its pointer is kept.
 */
const RESULT_SLOT = 8;

function exportsOf<K extends string>(): WasmCryptoExports & WasmExport<K> {
  const wasm = bridge.wasm as unknown as (WasmCryptoExports & WasmExport<K>) | null;
  if (wasm === null) throw new Error('wasm crypto used before initCrypto() resolved');
  return wasm;
}

/**
 * Views of the module's memory, made again only when it grows (which replaces its buffer):
 * making them per call measurably slowed hashing short inputs, the most frequent call.
 */
let bytes = new Uint8Array(0);
let words = new Int32Array(0);

function viewsOf(memory: { buffer: ArrayBuffer }): void {
  if (bytes.buffer !== memory.buffer) {
    bytes = new Uint8Array(memory.buffer);
    words = new Int32Array(memory.buffer);
  }
}

/**
 * Calls export `name` with `inputs` copied into the module's memory (each passed as pointer and
 * length), then `scalars`, and returns the byte vector it produces.
 *
 * @throws InvalidInputError with `refusal` as its message (the trap as its cause) when the call
 *   traps, which for these functions means the module refused the input.
 */
export function callWasm<K extends string>(
  name: K,
  inputs: readonly Uint8Array[],
  scalars: readonly number[],
  refusal: string,
): Uint8Array {
  const wasm = exportsOf<K>();
  const stackPointer = wasm.__wbindgen_add_to_stack_pointer(0);
  const args: number[] = [RESULT_SLOT];
  try {
    for (const input of inputs) {
      const pointer = wasm.__wbindgen_malloc(input.length);
      args.push(pointer, input.length);
      viewsOf(wasm.memory);
      bytes.set(input, pointer);
    }
    for (const scalar of scalars) args.push(scalar);
    Reflect.apply(wasm[name], wasm, args);
  } catch (trap) {
    wasm.__wbindgen_add_to_stack_pointer(stackPointer - wasm.__wbindgen_add_to_stack_pointer(0));
    for (let at = 1; at < 1 + 2 * inputs.length && at < args.length; at += 2) {
      wasm.__wbindgen_free(args[at], args[at + 1]);
    }
    throw new InvalidInputError(refusal, { cause: trap });
  }
  viewsOf(wasm.memory);
  const pointer = words[RESULT_SLOT / 4];
  const length = words[RESULT_SLOT / 4 + 1];
  const result = bytes.slice(pointer, pointer + length);
  wasm.__wbindgen_free(pointer, length);
  return result;
}
