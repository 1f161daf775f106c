/**
 * The answering side of sender recovery (`sender-recovery.ts`): works out from each signed
 * transaction's encoding the digest its signature signs, as EthereumJS's
 * `getMessageToVerifySignature` does (the fields before `v, r, s`, re-encoded; a typed
 * transaction's prefixed with its type; an EIP-155 legacy one's followed by its chain id, 0, 0),
 * recovers the public key with the function the node's `ecrecover` uses (`signature-recovery.ts`)
 * and hashes it into its address. The main thread has already decoded each transaction with the
 * library, so the encoding is canonical and re-encoding its fields gives the library's bytes.
 * What is not recovered here (high `s`, a recovery id other than 0 or 1, a signature that
 * recovers no key) is answered as not recovered; the main thread then leaves it to the library,
 * which decides it exactly as before. It runs on the recovery worker, or on a call thread, which
 * then needs no worker beside it. The WebAssembly must be initialised (`initCrypto`) first.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bigIntToUnpaddedBytes, concatBytes, setLengthLeft } from '@ethereumjs/util';
import {
  ANSWER_ADDRESS_AT,
  ANSWER_ITEM_BYTES,
  EIP155_SIGNED,
  REQUEST_HEADER_BYTES,
} from './recovery-protocol.js';
import type { RecoveryAnswer, RecoveryRequest } from './recovery-protocol.js';
import { addressOfPublicKey, recoverPublicKey } from './signature-recovery.js';
import { keccak256 } from './wasm-crypto.js';

/** Where requests arrive and answers go: a worker's parent port or a `MessagePort`. */
export interface RecoveryPort {
  on(event: 'message', listener: (request: RecoveryRequest) => void): unknown;
  postMessage(answer: RecoveryAnswer, transfer?: ArrayBuffer[]): void;
}

const SCALAR_BYTES = 32;
const EMPTY = new Uint8Array();

/**
 * The 65-byte public key that signed the transaction `encoded`.
 *
 * @throws when it is not recoverable here (see the module notes).
 */
function senderPublicKey(encoded: Uint8Array, flags: number): Uint8Array {
  const typed = encoded[0] <= 0x7f;
  const fields = RLP.decode(typed ? encoded.subarray(1) : encoded) as Uint8Array[];
  const [vField, r, s] = fields.slice(-3);
  const v = bytesToBigInt(vField);
  const unsigned = fields.slice(0, -3);
  let payload: Uint8Array;
  let recoveryId: bigint;
  if (typed) {
    payload = concatBytes(encoded.subarray(0, 1), RLP.encode(unsigned));
    recoveryId = v;
  } else if ((flags & EIP155_SIGNED) !== 0) {
    const chainId = (v - 35n) / 2n;
    payload = RLP.encode([...unsigned, bigIntToUnpaddedBytes(chainId), EMPTY, EMPTY]);
    recoveryId = v - 35n - 2n * chainId;
  } else {
    payload = RLP.encode(unsigned);
    recoveryId = v - 27n;
  }
  // Longer than 32 bytes throws here; out of range, or a recovery id other than 0 or 1, there.
  const signature = concatBytes(setLengthLeft(r, SCALAR_BYTES), setLengthLeft(s, SCALAR_BYTES));
  const id = recoveryId === 0n || recoveryId === 1n ? Number(recoveryId) : -1;
  return recoverPublicKey(keccak256(payload), signature, id);
}

/** Where each item of a request starts, and its encoding's length. */
function itemsOf(items: Uint8Array): Array<{ at: number; length: number }> {
  const view = new DataView(items.buffer, items.byteOffset, items.byteLength);
  const found: Array<{ at: number; length: number }> = [];
  for (let at = 0; at < items.length; at += REQUEST_HEADER_BYTES + found.at(-1)!.length) {
    found.push({ at, length: view.getUint32(at + 1) });
  }
  return found;
}

function recover(items: Uint8Array): Uint8Array<ArrayBuffer> {
  const found = itemsOf(items);
  const answers = new Uint8Array(found.length * ANSWER_ITEM_BYTES);
  found.forEach(({ at, length }, index) => {
    const answerAt = index * ANSWER_ITEM_BYTES;
    const start = at + REQUEST_HEADER_BYTES;
    try {
      const publicKey = senderPublicKey(items.subarray(start, start + length), items[at]);
      answers.set(publicKey.subarray(1), answerAt + 1);
      answers.set(addressOfPublicKey(publicKey), answerAt + ANSWER_ADDRESS_AT);
      answers[answerAt] = 1;
    } catch {
      // Not recovered here (status 0): the library decides it on the main thread.
    }
  });
  return answers;
}

/** Answers every batch that arrives on `port`, after saying it is ready. */
export function serveRecoveries(port: RecoveryPort): void {
  port.on('message', ({ batch, items }) => {
    const answer: RecoveryAnswer = { kind: 'recovered', batch, items: recover(items) };
    port.postMessage(answer, [answer.items.buffer]);
  });
  port.postMessage({ kind: 'ready' });
}
