/**
 * Hashing and secp256k1 through @polkadot/wasm-crypto. The WebAssembly module must be
 * initialised once (`initCrypto`) before any other function here is called; the daemon does
 * it at start-up and tests do it in their setup.
 */
import {
  keccak256 as wasmKeccak256,
  sha256 as wasmSha256,
  waitReady,
  isReady,
} from '@polkadot/wasm-crypto';

let ready: Promise<void> | undefined;

export function initCrypto(): Promise<void> {
  ready ??= waitReady().then((ok) => {
    if (!ok) throw new Error('@polkadot/wasm-crypto failed to initialise');
  });
  return ready;
}

function assertReady(): void {
  if (!isReady()) throw new Error('wasm crypto used before initCrypto() resolved');
}

export function keccak256(data: Uint8Array): Uint8Array {
  assertReady();
  return wasmKeccak256(data);
}

export function sha256(data: Uint8Array): Uint8Array {
  assertReady();
  return wasmSha256(data);
}
