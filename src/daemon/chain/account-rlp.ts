/**
 * An account's RLP, `[nonce, balance, storageRoot, codeHash]`, byte for byte what
 * `Account.serialize` of @ethereumjs/util gives, written into one array. The state caches
 * serialize an account on every write (a value transfer writes its sender twice, its recipient
 * and the coinbase); the library's way goes through a hex string per number, an array of parts
 * and several concatenations.
 */
import { Account } from '@ethereumjs/util';

const EMPTY = new Uint8Array();

/** `n` as big-endian bytes without leading zeros (zero is the empty string). */
function unpaddedBytes(n: bigint): Uint8Array {
  if (n === 0n) return EMPTY;
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return Buffer.from(hex, 'hex');
}

/** A byte string of one byte under 0x80 is its own encoding; others get a length byte. */
function isOwnEncoding(item: Uint8Array): boolean {
  return item.length === 1 && item[0] < 0x80;
}

export function accountRlp(account: Account): Uint8Array {
  const items = [
    unpaddedBytes(account.nonce),
    unpaddedBytes(account.balance),
    account.storageRoot,
    account.codeHash,
  ];
  let payload = 0;
  for (const item of items) {
    // A length byte of its own below 56 bytes; longer items do not occur in real state.
    if (item.length >= 56) return account.serialize();
    payload += isOwnEncoding(item) ? 1 : 1 + item.length;
  }
  // Four items of at most 56 encoded bytes: the payload's length fits one byte.
  const out = new Uint8Array((payload < 56 ? 1 : 2) + payload);
  let at = 0;
  if (payload < 56) {
    out[at++] = 0xc0 + payload;
  } else {
    out[at++] = 0xf8;
    out[at++] = payload;
  }
  for (const item of items) {
    if (!isOwnEncoding(item)) out[at++] = 0x80 + item.length;
    out.set(item, at);
    at += item.length;
  }
  return out;
}

/** An account the state caches serialize with {@link accountRlp}. */
export class QuicklySerializedAccount extends Account {
  static of(account: Account): QuicklySerializedAccount {
    return new QuicklySerializedAccount(
      account.nonce,
      account.balance,
      account.storageRoot,
      account.codeHash,
    );
  }

  override serialize(): Uint8Array {
    return accountRlp(this);
  }
}
