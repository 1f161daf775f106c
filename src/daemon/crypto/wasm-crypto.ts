/**
 * Hashing and secp256k1 through @polkadot/wasm-crypto. The WebAssembly module must be
 * initialised once (`initCrypto`) before any other function here is called; the daemon does
 * it at start-up and tests do it in their setup.
 */
import {
  keccak256 as wasmKeccak256,
  secp256k1Expand as wasmSecp256k1Expand,
  secp256k1FromSeed as wasmSecp256k1FromSeed,
  secp256k1Recover as wasmSecp256k1Recover,
  secp256k1Sign as wasmSecp256k1Sign,
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

/**
 * secp256k1 key pair of a private key: 65 bytes, the 32-byte secret followed by the 33-byte
 * compressed public key. The secret must be in [1, n-1]; out of range the WebAssembly traps.
 */
export function secp256k1KeyPair(secretKey: Uint8Array): Uint8Array {
  assertReady();
  return wasmSecp256k1FromSeed(secretKey);
}

/** Expands a 33-byte compressed public key to its 65-byte `0x04 ‖ x ‖ y` form. */
export function secp256k1Expand(publicKey: Uint8Array): Uint8Array {
  assertReady();
  return wasmSecp256k1Expand(publicKey);
}

/**
 * Signs a 32-byte digest with a secp256k1 private key.
 * Returns 65 bytes `r ‖ s ‖ recoveryId` (recoveryId 0 or 1), the layout the WebAssembly module gives.
 */
export function secp256k1SignDigest(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  assertReady();
  return wasmSecp256k1Sign(digest, privateKey);
}

/**
 * Recovers the uncompressed public key (65 bytes, leading 0x04) that signed `digest`.
 * Throws when the signature is not recoverable; the module also refuses high-s signatures,
 * so callers that must accept them (the ecrecover precompile) need a fallback.
 */
export function secp256k1RecoverPublicKey(
  digest: Uint8Array,
  signature64: Uint8Array,
  recoveryId: number,
): Uint8Array {
  assertReady();
  return wasmSecp256k1Expand(wasmSecp256k1Recover(digest, signature64, recoveryId));
}
