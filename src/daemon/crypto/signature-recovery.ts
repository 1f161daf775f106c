/**
 * secp256k1 public-key recovery for transaction senders and `ecrecover`, through the native
 * libsecp256k1 binding of the `secp256k1` package when it loads, else through the WebAssembly of
 * @polkadot/wasm-crypto. On this machine the binding takes about 48 µs of CPU per recovery and
 * the WebAssembly about 250 µs (docs/benchmarks.md), and recovery is the largest single cost of
 * admitting a transaction.
 *
 * Both paths decide every signature the same way: the range checks (recovery id 0 or 1, `r` and
 * `s` in [1, n-1], low `s`) come first and are shared, so libsecp256k1, which would accept a
 * high `s`, never sees one; what either library then refuses (an `r` that is no point's
 * x-coordinate, a key at infinity) is refused with the same error. test/unit/signature-recovery
 * compares the two on random signatures.
 *
 * Only the package's `bindings` entry is loaded: its main entry silently falls back to a pure
 * JavaScript implementation (elliptic), slower than the WebAssembly, when the addon is missing.
 * The binding ships prebuilt for linux-x64 (glibc and musl), darwin-arm64 and win32-x64 and
 * builds with node-gyp elsewhere; where neither worked, it is absent and the WebAssembly serves.
 */
import { createRequire } from 'node:module';
import { InvalidInputError } from '../../shared/errors.js';
import { assertRecoverable, keccak256, secp256k1RecoverPublicKey } from './wasm-crypto.js';

const PUBLIC_KEY_XY_BYTES = 64;
const ADDRESS_BYTES = 20;

/** The part of the `secp256k1` package's binding used here. */
interface Secp256k1Binding {
  ecdsaRecover(
    signature: Uint8Array,
    recoveryId: number,
    digest: Uint8Array,
    compressed: boolean,
  ): Uint8Array;
}

/** The 65-byte uncompressed key (`0x04 ‖ x ‖ y`) of a signature `assertRecoverable` passed. */
type RecoverChecked = (
  digest: Uint8Array,
  signature64: Uint8Array,
  recoveryId: number,
) => Uint8Array;

/** Which implementation recovers signatures, and why the native one does not when it does not. */
export type RecoveryBackend =
  | { name: 'libsecp256k1'; recover: RecoverChecked }
  | { name: 'wasm'; recover: RecoverChecked; nativeError: string };

/**
 * The backend `load` gives: the native binding if it loads, else the WebAssembly with the
 * reason. `load` defaults to requiring the package's binding; tests pass their own.
 */
export function selectRecoveryBackend(
  load: () => Secp256k1Binding = () =>
    createRequire(import.meta.url)('secp256k1/bindings') as Secp256k1Binding,
): RecoveryBackend {
  let binding: Secp256k1Binding;
  try {
    binding = load();
  } catch (error) {
    return {
      name: 'wasm',
      recover: secp256k1RecoverPublicKey,
      nativeError: error instanceof Error ? error.message : String(error),
    };
  }
  return {
    name: 'libsecp256k1',
    recover: (digest, signature64, recoveryId) => {
      try {
        return binding.ecdsaRecover(signature64, recoveryId, digest, false);
      } catch (error) {
        throw new InvalidInputError('invalid signature: no public key recovers from it', {
          cause: error,
        });
      }
    },
  };
}

let threadBackend: RecoveryBackend | undefined;

/**
 * The backend of this thread, chosen when it is first needed. Loading the binding makes
 * libsecp256k1's tables (11–15 ms here, docs/benchmarks.md); a start or a call thread that
 * recovers nothing yet does not wait for them.
 */
export function threadRecoveryBackend(): RecoveryBackend {
  threadBackend ??= selectRecoveryBackend();
  return threadBackend;
}

/**
 * Recovers the uncompressed public key (65 bytes, leading 0x04) that signed `digest`, with
 * `backend` (default: this thread's).
 *
 * @throws InvalidInputError when the signature is not recoverable: wrong lengths, a recovery id
 *   other than 0 or 1, `r` or `s` out of [1, n-1], high `s` (the ecrecover precompile, which must
 *   accept it, leaves those to the library), an `r` that is no point's x-coordinate, or a
 *   signature whose key would be the point at infinity.
 */
export function recoverPublicKey(
  digest: Uint8Array,
  signature64: Uint8Array,
  recoveryId: number,
  backend: RecoveryBackend = threadRecoveryBackend(),
): Uint8Array {
  assertRecoverable(digest, signature64, recoveryId);
  return backend.recover(digest, signature64, recoveryId);
}

/**
 * The address of a public key, `x ‖ y` (64 bytes) or with its 0x04 prefix: the last 20 bytes of
 * the keccak-256 of `x ‖ y`, hashed by the WebAssembly (the library's own address derivation
 * hashes in JavaScript, several times slower).
 */
export function addressOfPublicKey(publicKey: Uint8Array): Uint8Array {
  const xy = publicKey.length === PUBLIC_KEY_XY_BYTES + 1 ? publicKey.subarray(1) : publicKey;
  if (xy.length !== PUBLIC_KEY_XY_BYTES) {
    throw new InvalidInputError('invalid secp256k1 public key: expected 64 or 65 bytes');
  }
  return keccak256(xy).subarray(-ADDRESS_BYTES);
}
