/**
 * The answering side of sender recovery (`sender-recovery.ts`): decodes each transaction for its
 * chain with the library, takes the signature exactly when the library would recover it with
 * `customCrypto.ecrecover` (frozen, signed, low `s`, recovery id 0 or 1), recovers the public key
 * with the same function that `ecrecover` uses (`signature-recovery.ts`) and hashes it into its
 * address. Anything else is answered as not recovered; the main thread then leaves it to the
 * library, which decides it exactly as before. It runs on the recovery worker, or on a call
 * thread, which then needs no worker beside it. The WebAssembly must be initialised
 * (`initCrypto`) first.
 */
import type { Common, Hardfork } from '@ethereumjs/common';
import { Capability, createTxFromRLP } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { SECP256K1_ORDER_DIV_2, bigIntToUnpaddedBytes, setLengthLeft } from '@ethereumjs/util';
import { createChainCommon } from '../chain/common.js';
import { recoveryIdOf } from '../chain/evm-crypto.js';
import { ANSWER_ADDRESS_AT, ANSWER_ITEM_BYTES, REQUEST_HEADER_BYTES } from './recovery-protocol.js';
import type { ChainKey, RecoveryAnswer, RecoveryRequest } from './recovery-protocol.js';
import { addressOfPublicKey, recoverPublicKey } from './signature-recovery.js';

/** Where requests arrive and answers go: a worker's parent port or a `MessagePort`. */
export interface RecoveryPort {
  on(event: 'message', listener: (request: RecoveryRequest) => void): unknown;
  postMessage(answer: RecoveryAnswer, transfer?: ArrayBuffer[]): void;
}

const commons = new Map<ChainKey, Common>();

function commonFor(key: ChainKey): Common {
  let common = commons.get(key);
  if (common === undefined) {
    const [chainId, hardfork] = key.split('/');
    common = createChainCommon(BigInt(chainId));
    common.setHardfork(hardfork as Hardfork);
    commons.set(key, common);
  }
  return common;
}

/** The sender's 65-byte public key, or undefined when the library must decide the signature. */
function senderPublicKey(tx: TypedTransaction): Uint8Array | undefined {
  const { v, r, s } = tx;
  if (v === undefined || r === undefined || s === undefined || s > SECP256K1_ORDER_DIV_2) {
    return undefined;
  }
  const chainId = tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined;
  const recoveryId = recoveryIdOf(v, chainId);
  if (recoveryId !== 0 && recoveryId !== 1) return undefined;
  const signature = new Uint8Array(64);
  signature.set(setLengthLeft(bigIntToUnpaddedBytes(r), 32), 0);
  signature.set(setLengthLeft(bigIntToUnpaddedBytes(s), 32), 32);
  return recoverPublicKey(tx.getMessageToVerifySignature(), signature, recoveryId);
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

function recover(chains: readonly ChainKey[], items: Uint8Array): Uint8Array<ArrayBuffer> {
  const found = itemsOf(items);
  const answers = new Uint8Array(found.length * ANSWER_ITEM_BYTES);
  found.forEach(({ at, length }, index) => {
    const answerAt = index * ANSWER_ITEM_BYTES;
    const start = at + REQUEST_HEADER_BYTES;
    try {
      const tx = createTxFromRLP(items.subarray(start, start + length), {
        common: commonFor(chains[items[at]]),
      });
      const publicKey = senderPublicKey(tx);
      if (publicKey === undefined) return;
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
  port.on('message', ({ batch, chains, items }) => {
    const answer: RecoveryAnswer = { kind: 'recovered', batch, items: recover(chains, items) };
    port.postMessage(answer, [answer.items.buffer]);
  });
  port.postMessage({ kind: 'ready' });
}
