/**
 * Transaction senders as admission and execution read them. EthereumJS caches a frozen
 * transaction's recovered public key but derives the address from it again on every
 * `getSenderAddress()`, hashing in JavaScript. The thread that recovers a key off the main thread
 * hashes it too and hands over the address (`sender-recovery.ts`); a transaction recovered
 * in-process gets its address from the WebAssembly keccak instead. Either is kept in the
 * transaction's cache, beside its public key, where the daemon's bundle of the library also
 * reads it (`getSenderAddress`, scripts/ethereumjs-patches.js).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import { addressOfPublicKey } from './signature-recovery.js';

/** The cache of a transaction, with the field the patched library reads. */
interface SenderCache {
  senderAddress?: Address;
}

const cacheOf = (tx: TypedTransaction) => tx.cache as SenderCache;

/** Records the address a recovery thread derived from `tx`'s public key (20 bytes). */
export function rememberSender(tx: TypedTransaction, address: Uint8Array): void {
  cacheOf(tx).senderAddress = new Address(address);
}

/**
 * The sender of a signed transaction: the remembered address, else the address of its public
 * key (recovered now unless cached). An unfrozen transaction answers through its own
 * `getSenderAddress()`: an impersonated one has its sender set there, and its stand-in
 * signature recovers no key of it (`../chain/impersonation-signature.ts`).
 *
 * @throws what `tx.getSenderPublicKey()` throws for a signature that recovers no key.
 */
export function senderAddressOf(tx: TypedTransaction): Address {
  const cache = cacheOf(tx);
  if (cache.senderAddress === undefined) {
    if (!Object.isFrozen(tx)) return tx.getSenderAddress();
    cache.senderAddress = new Address(addressOfPublicKey(tx.getSenderPublicKey()));
  }
  return cache.senderAddress;
}
