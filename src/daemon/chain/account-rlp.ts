/**
 * An account's RLP, `[nonce, balance, storageRoot, codeHash]`, byte for byte what
 * `Account.serialize` of @ethereumjs/util gives, written into one array. The state caches
 * serialize an account on every write (a value transfer writes its sender twice, its recipient
 * and the coinbase); the library's way goes through a hex string per number, an array of parts
 * and several concatenations.
 */
import { Account } from '@ethereumjs/util';

/**
 * A number's RLP as an item: its big-endian bytes without leading zeros (zero is the empty
 * string), the bytes of one under 0x80 being their own encoding. Kept as hex until written.
 */
interface NumberItem {
  hex: string;
  /** Bytes the item takes, with its length byte. */
  size: number;
}

function numberItem(n: bigint): NumberItem {
  if (n === 0n) return { hex: '', size: 1 };
  const hex = n.toString(16);
  const bytes = (hex.length + 1) >> 1;
  return { hex, size: n < 0x80n ? 1 : 1 + bytes };
}

function hexDigit(code: number): number {
  return code < 58 ? code - 48 : code - 87;
}

/** Writes `item` at `at`; returns where the next item starts. */
function writeNumber(out: Uint8Array, at: number, item: NumberItem): number {
  const bytes = item.size - 1;
  if (item.hex.length === 0) {
    out[at] = 0x80;
    return at + 1;
  }
  if (item.size === 1) {
    out[at] = parseInt(item.hex, 16);
    return at + 1;
  }
  out[at] = 0x80 + bytes;
  let digit = item.hex.length;
  for (let index = at + bytes; index > at; index--) {
    const low = hexDigit(item.hex.charCodeAt(--digit));
    const high = digit > 0 ? hexDigit(item.hex.charCodeAt(--digit)) : 0;
    out[index] = (high << 4) | low;
  }
  return at + 1 + bytes;
}

/** Writes a byte string of 2 to 55 bytes at `at`; returns where the next item starts. */
function writeBytes(out: Uint8Array, at: number, bytes: Uint8Array): number {
  out[at] = 0x80 + bytes.length;
  out.set(bytes, at + 1);
  return at + 1 + bytes.length;
}

export function accountRlp(account: Account): Uint8Array {
  const { storageRoot, codeHash } = account;
  const nonce = numberItem(account.nonce);
  const balance = numberItem(account.balance);
  // Roots and hashes are 32 bytes; anything unusual (a number of 56 bytes or more, which real
  // state never holds) goes to the library's own encoding, not to an override that calls back
  // here.
  if (nonce.size > 56 || balance.size > 56 || storageRoot.length !== 32 || codeHash.length !== 32) {
    return Account.prototype.serialize.call(account);
  }
  const payload = nonce.size + balance.size + 66;
  // At most 56 + 56 + 66 bytes: the payload's length fits one byte.
  const out = new Uint8Array(2 + payload);
  out[0] = 0xf8;
  out[1] = payload;
  let at = writeNumber(out, 2, nonce);
  at = writeNumber(out, at, balance);
  at = writeBytes(out, at, storageRoot);
  writeBytes(out, at, codeHash);
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
