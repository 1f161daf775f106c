/**
 * The messages between the sender-recovery worker threads and the thread that uses them. A batch
 * travels as one transferred buffer each way, so a message costs the same whether it carries one
 * signature or forty.
 *
 * Request item: 32-byte digest ‖ 64-byte signature `r ‖ s` ‖ 1-byte recovery id (0 or 1).
 * Answer item: 1 status byte (1 recovered, 0 not recoverable here) ‖ 64-byte public key `x ‖ y`
 * ‖ 20-byte address (hashed there too, so the thread that admits transactions does not).
 */

export const REQUEST_ITEM_BYTES = 32 + 64 + 1;
export const ANSWER_ITEM_BYTES = 1 + 64 + 20;
/** Where an answer item's address starts. */
export const ANSWER_ADDRESS_AT = 1 + 64;

/** Main thread to worker: the signatures to recover, `batch` numbering the answer. */
export interface RecoveryRequest {
  batch: number;
  items: Uint8Array;
}

/** Worker to main thread: `ready` once the WebAssembly is initialised, then one answer per batch. */
export type RecoveryAnswer =
  { kind: 'ready' } | { kind: 'recovered'; batch: number; items: Uint8Array<ArrayBuffer> };
