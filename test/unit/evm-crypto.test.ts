import { beforeAll, describe, expect, it } from '@jest/globals';
import { SECP256K1_ORDER as N, ecrecover as libraryEcrecover } from '@ethereumjs/util';
import { SigningKey, getBytes, keccak256 } from 'ethers';
import { evmCrypto } from '../../src/daemon/chain/evm-crypto.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { infinitySigner, offCurveX, word } from '../helpers/bad-signatures.js';

const digest = getBytes(keccak256('0x01'));
const key = new SigningKey(word(0xc0ffeen));
const signature = key.sign(digest);
const publicKey = getBytes(key.publicKey).subarray(1);
const r = getBytes(signature.r);
const s = getBytes(signature.s);
const v = BigInt(signature.v);
const ecrecover = evmCrypto.ecrecover!;

describe("EthereumJS's ecrecover", () => {
  beforeAll(() => initCrypto());

  it('recovers low-s signatures in the module and high-s ones as the library does', () => {
    expect(ecrecover(digest, v, r, s)).toEqual(publicKey);
    const highS = word(N - BigInt(signature.s));
    const flippedV = v === 27n ? 28n : 27n;
    expect(ecrecover(digest, flippedV, r, highS)).toEqual(publicKey);
    expect(ecrecover(digest, flippedV, r, highS)).toEqual(
      libraryEcrecover(digest, flippedV, r, highS),
    );
  });

  it('refuses what the library refuses, thousands of times, and still recovers', () => {
    const crafted = infinitySigner()(digest);
    const bad: [bigint, Uint8Array, Uint8Array][] = [
      [27n, word(offCurveX(5n)), s],
      [27n + BigInt(crafted.yParity), word(crafted.r), word(crafted.s)],
      [28n, word(offCurveX(5n)), word(N - 1n)],
      [27n, word(0n), s],
      [29n, r, s],
    ];
    for (const [badV, badR, badS] of bad) {
      expect(() => libraryEcrecover(digest, badV, badR, badS)).toThrow();
    }
    let recovered = 0;
    for (let round = 0; round < 2_500; round++) {
      for (const [badV, badR, badS] of bad) {
        try {
          ecrecover(digest, badV, badR, badS);
          recovered++;
        } catch {
          // refused, as it must be
        }
      }
    }
    expect(recovered).toBe(0);
    expect(ecrecover(digest, v, r, s)).toEqual(publicKey);
  });
});
