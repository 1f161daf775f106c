/**
 * The answering side of sender recovery (`sender-recovery.ts`): recovers secp256k1 public keys
 * with the same function the node's `ecrecover` uses (`signature-recovery.ts`) and hashes each
 * into its address. A signature refused here is answered as not recovered; the main thread then
 * leaves it to the library, which decides it exactly as before. It runs on the recovery worker,
 * or on a call thread, which then needs no worker beside it. The WebAssembly must be initialised
 * (`initCrypto`) first.
 */
import { ANSWER_ADDRESS_AT, ANSWER_ITEM_BYTES, REQUEST_ITEM_BYTES } from './recovery-protocol.js';
import type { RecoveryAnswer, RecoveryRequest } from './recovery-protocol.js';
import { addressOfPublicKey, recoverPublicKey } from './signature-recovery.js';

/** Where requests arrive and answers go: a worker's parent port or a `MessagePort`. */
export interface RecoveryPort {
  on(event: 'message', listener: (request: RecoveryRequest) => void): unknown;
  postMessage(answer: RecoveryAnswer, transfer?: ArrayBuffer[]): void;
}

function recover(items: Uint8Array): Uint8Array<ArrayBuffer> {
  const count = items.length / REQUEST_ITEM_BYTES;
  const answers = new Uint8Array(count * ANSWER_ITEM_BYTES);
  for (let index = 0; index < count; index++) {
    const request = items.subarray(index * REQUEST_ITEM_BYTES, (index + 1) * REQUEST_ITEM_BYTES);
    const answerAt = index * ANSWER_ITEM_BYTES;
    try {
      const publicKey = recoverPublicKey(
        request.subarray(0, 32),
        request.subarray(32, 96),
        request[96],
      );
      answers.set(publicKey.subarray(1), answerAt + 1);
      answers.set(addressOfPublicKey(publicKey), answerAt + ANSWER_ADDRESS_AT);
      answers[answerAt] = 1;
    } catch {
      answers[answerAt] = 0;
    }
  }
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
