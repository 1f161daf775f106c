/**
 * The messages between the sender-recovery worker threads and the thread that uses them. A batch
 * travels as one transferred buffer each way, so a message costs the same whether it carries one
 * transaction or forty.
 *
 * Request item: 1 flag byte ({@link EIP155_SIGNED}) ‖ 4-byte big-endian length ‖ the signed
 * transaction's encoding. The answering thread works out the digest the signature signs from the
 * encoding, so the thread that admits transactions neither encodes nor hashes anything for it.
 * Answer item: 1 status byte (1 recovered, 0 not recoverable here) ‖ 64-byte public key `x ‖ y`
 * ‖ 20-byte address (hashed there too).
 */

export const REQUEST_HEADER_BYTES = 1 + 4;
/** Flag of a legacy transaction the library treats as EIP-155 signed (chain id in `v`). */
export const EIP155_SIGNED = 1;
export const ANSWER_ITEM_BYTES = 1 + 64 + 20;
/** Where an answer item's address starts. */
export const ANSWER_ADDRESS_AT = 1 + 64;

/** Main thread to worker: the transactions to recover, `batch` numbering the answer. */
export interface RecoveryRequest {
  batch: number;
  items: Uint8Array;
}

/** Worker to main thread: `ready` once the WebAssembly is initialised, then one answer per batch. */
export type RecoveryAnswer =
  { kind: 'ready' } | { kind: 'recovered'; batch: number; items: Uint8Array<ArrayBuffer> };
