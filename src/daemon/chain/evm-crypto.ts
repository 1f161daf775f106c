/**
 * The `customCrypto` EthereumJS runs with: hashing and signing from the WebAssembly module and
 * signature recovery from libsecp256k1 (or the WebAssembly, `signature-recovery.ts`), several
 * times faster than the library's pure-JS defaults and with identical results.
 *
 * KZG: no KZG library is bundled, and without `customCrypto.kzg` the point-evaluation
 * precompile (0x0a) throws out of `runTx`, which would take block production down with it.
 * The stand-in below makes every point evaluation fail inside the EVM instead, so a call to 0x0a
 * is an ordinary failed call (all gas of that frame consumed), never a crash.
 */
import type { CustomCrypto } from '@ethereumjs/common';
import { ecrecover as libraryEcrecover, setLengthLeft } from '@ethereumjs/util';
import type { KZG } from '@ethereumjs/util';
import { isLowS } from '../crypto/secp256k1-scalar.js';
import { recoverPublicKey } from '../crypto/signature-recovery.js';
import { keccak256, secp256k1SignDigest, sha256 } from '../crypto/wasm-crypto.js';

/**
 * The recovery id (0 or 1 when valid) of a signature's `v`, as EthereumJS passes it to
 * `ecrecover`: typed transactions' 0/1, legacy 27/28, or EIP-155's `35 + 2 * chainId`.
 */
export function recoveryIdOf(v: bigint, chainId?: bigint): number {
  if (v === 0n || v === 1n) return Number(v);
  if (v === 27n || v === 28n) return Number(v - 27n);
  if (chainId !== undefined) return Number(v - (2n * chainId + 35n));
  return -1;
}

function ecrecover(
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  const recoveryId = recoveryIdOf(v, chainId);
  const s32 = setLengthLeft(s, 32);
  if ((recoveryId === 0 || recoveryId === 1) && isLowS(s32)) {
    // The node's recovery (native or WebAssembly) decides these signatures as the library would,
    // only faster, so its refusal is final: asking the library again would only double the cost
    // of bad input.
    const signature = new Uint8Array(64);
    signature.set(setLengthLeft(r, 32), 0);
    signature.set(s32, 32);
    return recoverPublicKey(msgHash, signature, recoveryId).subarray(1);
  }
  // The node's recovery refuses high-s signatures, which the ecrecover precompile must accept;
  // the library decides those (and recovery ids that are not 0 or 1).
  return libraryEcrecover(msgHash, v, r, s, chainId);
}

/** Signs in the layout EthereumJS expects from `ecsign`: `recoveryId ‖ r ‖ s`. */
function ecsign(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const signature = secp256k1SignDigest(digest, privateKey);
  const out = new Uint8Array(65);
  out[0] = signature[64];
  out.set(signature.subarray(0, 64), 1);
  return out;
}

function pointEvaluationUnavailable(): never {
  throw new Error('KZG point evaluation is not available on this node');
}

const unavailableKzg: KZG = {
  blobToKzgCommitment: pointEvaluationUnavailable,
  computeBlobProof: pointEvaluationUnavailable,
  verifyProof: pointEvaluationUnavailable,
  verifyBlobProofBatch: pointEvaluationUnavailable,
  computeCells: pointEvaluationUnavailable,
  computeCellsAndProofs: pointEvaluationUnavailable,
  recoverCellsAndProofs: pointEvaluationUnavailable,
  verifyCellKzgProofBatch: pointEvaluationUnavailable,
};

/** The crypto EthereumJS uses on this node. `initCrypto()` must have resolved before it is called. */
export const evmCrypto: CustomCrypto = {
  keccak256,
  sha256,
  ecrecover,
  ecsign: ecsign as unknown as CustomCrypto['ecsign'],
  kzg: unavailableKzg,
};
