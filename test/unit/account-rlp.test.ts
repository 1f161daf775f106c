import { describe, expect, it } from '@jest/globals';
import { Account, KECCAK256_NULL, KECCAK256_RLP, bytesToHex } from '@ethereumjs/util';
import { QuicklySerializedAccount, accountRlp } from '../../src/daemon/chain/account-rlp.js';

const NUMBERS = [
  0n,
  1n,
  0x7fn,
  0x80n,
  0xffn,
  0x100n,
  21_000n * 10n ** 9n,
  10_000n * 10n ** 18n,
  2n ** 64n - 1n,
  2n ** 255n,
  2n ** 256n - 1n,
  2n ** 440n,
];
const ROOT = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 5) & 0xff);

describe('account RLP', () => {
  it.each(NUMBERS)('equals Account.serialize with nonce and balance around %s', (n) => {
    for (const [nonce, balance] of [
      [n, 0n],
      [0n, n],
      [n, n],
      [n + 1n, n * 3n],
    ]) {
      for (const [storageRoot, codeHash] of [
        [KECCAK256_RLP, KECCAK256_NULL],
        [ROOT, ROOT],
      ]) {
        const account = new Account(nonce, balance, storageRoot, codeHash);
        expect(bytesToHex(accountRlp(account))).toBe(bytesToHex(account.serialize()));
      }
    }
  });

  it('is what an account made for the state caches serializes to', () => {
    const account = new Account(7n, 10n ** 20n, ROOT, KECCAK256_NULL);
    const quick = QuicklySerializedAccount.of(account);
    expect(bytesToHex(quick.serialize())).toBe(bytesToHex(account.serialize()));
    expect(quick.nonce).toBe(7n);
    expect(quick.balance).toBe(10n ** 20n);
  });

  it('leaves numbers of 56 bytes or more to the library, also for an account of the caches', () => {
    const account = new Account(1n, 2n ** 1023n, ROOT, KECCAK256_NULL);
    const quick = QuicklySerializedAccount.of(account);
    expect(bytesToHex(quick.serialize())).toBe(bytesToHex(account.serialize()));
  });
});
