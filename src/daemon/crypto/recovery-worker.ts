/**
 * Worker thread entry of {@link SenderRecovery}: recovers secp256k1 public keys with the same
 * WebAssembly function the main thread uses. A signature the module refuses is answered as not
 * recovered; the main thread then leaves it to the library, which decides it exactly as before.
 */
import { parentPort } from 'node:worker_threads';
import { ANSWER_ITEM_BYTES, REQUEST_ITEM_BYTES } from './recovery-protocol.js';
import type { RecoveryAnswer, RecoveryRequest } from './recovery-protocol.js';
import { initCrypto, secp256k1RecoverPublicKey } from './wasm-crypto.js';

function recover(items: Uint8Array): Uint8Array<ArrayBuffer> {
  const count = items.length / REQUEST_ITEM_BYTES;
  const answers = new Uint8Array(count * ANSWER_ITEM_BYTES);
  for (let index = 0; index < count; index++) {
    const request = items.subarray(index * REQUEST_ITEM_BYTES, (index + 1) * REQUEST_ITEM_BYTES);
    const answerAt = index * ANSWER_ITEM_BYTES;
    try {
      const publicKey = secp256k1RecoverPublicKey(
        request.subarray(0, 32),
        request.subarray(32, 96),
        request[96],
      );
      answers.set(publicKey.subarray(1), answerAt + 1);
      answers[answerAt] = 1;
    } catch {
      answers[answerAt] = 0;
    }
  }
  return answers;
}

const port = parentPort;
if (port === null) throw new Error('recovery-worker runs only as a worker thread');
await initCrypto();
port.on('message', ({ batch, items }: RecoveryRequest) => {
  const answer: RecoveryAnswer = { kind: 'recovered', batch, items: recover(items) };
  port.postMessage(answer, [answer.items.buffer]);
});
port.postMessage({ kind: 'ready' } satisfies RecoveryAnswer);
