import { beforeAll, describe, expect, it } from '@jest/globals';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import {
  Capability,
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
} from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  SECP256K1_ORDER as N,
  bigIntToUnpaddedBytes,
  bytesToHex,
  createAddressFromPrivateKey,
  setLengthLeft,
} from '@ethereumjs/util';
import { randomBytes } from 'node:crypto';
import { recoveryIdOf } from '../../src/daemon/chain/evm-crypto.js';
import {
  addressOfPublicKey,
  recoverPublicKey,
  selectRecoveryBackend,
} from '../../src/daemon/crypto/signature-recovery.js';
import type { RecoveryBackend } from '../../src/daemon/crypto/signature-recovery.js';
import { senderAddressOf } from '../../src/daemon/crypto/sender-address.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { InvalidInputError } from '../../src/shared/errors.js';
import { infinitySigner, offCurveX, word } from '../helpers/bad-signatures.js';

/** Chain 9000 with the library's own crypto, so its answers are an independent reference. */
const libraryCommon = createCustomCommon({ chainId: 9000 }, Mainnet, {
  hardfork: Hardfork.Prague,
});
/** Pre-EIP-155 legacy signatures (v 27/28) come from a chain without replay protection. */
const homestead = createCustomCommon({ chainId: 9000 }, Mainnet, { hardfork: Hardfork.Homestead });

const randomKey = (): Uint8Array => {
  for (;;) {
    const candidate = new Uint8Array(randomBytes(32));
    const value = BigInt(bytesToHex(candidate));
    if (value > 0n && value < N) return candidate;
  }
};

const base = () => ({
  nonce: BigInt(randomBytes(1)[0]),
  to: createAddressFromPrivateKey(randomKey()),
  value: BigInt(randomBytes(1)[0]),
  gasLimit: 100_000n,
  data: new Uint8Array(randomBytes(randomBytes(1)[0] % 40)),
});
const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n };

/** One random transaction of each shape, signed by `key`. */
function randomTransactions(key: Uint8Array): TypedTransaction[] {
  const common = libraryCommon;
  return [
    createLegacyTx({ ...base(), gasPrice: 10n ** 9n }, { common }).sign(key),
    createLegacyTx({ ...base(), gasPrice: 10n ** 9n }, { common: homestead }).sign(key),
    createAccessList2930Tx({ ...base(), gasPrice: 10n ** 9n, accessList: [] }, { common }).sign(
      key,
    ),
    createFeeMarket1559Tx({ ...base(), ...fees }, { common }).sign(key),
    createEOACode7702Tx(
      {
        ...base(),
        ...fees,
        authorizationList: [
          {
            chainId: '0x2328',
            address: bytesToHex(randomBytes(20)),
            nonce: '0x0',
            yParity: '0x0',
            r: bytesToHex(word(1n)),
            s: bytesToHex(word(1n)),
          },
        ],
      },
      { common },
    ).sign(key),
  ];
}

/** A transaction's signature as the recovery functions take it. */
function signatureOf(tx: TypedTransaction) {
  const chainId = tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined;
  const signature = new Uint8Array(64);
  signature.set(setLengthLeft(bigIntToUnpaddedBytes(tx.r!), 32), 0);
  signature.set(setLengthLeft(bigIntToUnpaddedBytes(tx.s!), 32), 32);
  return {
    digest: tx.getMessageToVerifySignature(),
    signature,
    recoveryId: recoveryIdOf(tx.v!, chainId),
  };
}

/** The key `backend` recovers, or the message it refuses with (an `InvalidInputError`). */
function outcome(
  backend: RecoveryBackend,
  digest: Uint8Array,
  signature: Uint8Array,
  recoveryId: number,
): string {
  try {
    return bytesToHex(recoverPublicKey(digest, signature, recoveryId, backend));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return `refused: ${(error as Error).message}`;
  }
}

describe('signature recovery backends', () => {
  let native: RecoveryBackend;
  let wasm: RecoveryBackend;

  beforeAll(async () => {
    await initCrypto();
    native = selectRecoveryBackend();
    wasm = selectRecoveryBackend(() => {
      throw new Error('no native secp256k1 here');
    });
  });

  it('loads the native binding here, and falls back to the WebAssembly, saying why', () => {
    expect(native.name).toBe('libsecp256k1');
    expect(wasm).toMatchObject({ name: 'wasm', nativeError: 'no native secp256k1 here' });
  });

  it("recover the library's sender from random transactions of every type and both parities", () => {
    const parities = new Set<number>();
    const types = new Set<string>();
    for (let round = 0; round < 40; round++) {
      const key = randomKey();
      const sender = createAddressFromPrivateKey(key);
      for (const tx of randomTransactions(key)) {
        const { digest, signature, recoveryId } = signatureOf(tx);
        const fromNative = recoverPublicKey(digest, signature, recoveryId, native);
        const fromWasm = recoverPublicKey(digest, signature, recoveryId, wasm);
        expect(fromNative).toEqual(fromWasm);
        expect(fromNative.subarray(1)).toEqual(tx.getSenderPublicKey());
        expect(addressOfPublicKey(fromNative)).toEqual(sender.bytes);
        parities.add(recoveryId);
        types.add(`${tx.type}:${tx.v! > 28n ? 'eip155' : 'plain'}`);
      }
    }
    expect([...parities].sort()).toEqual([0, 1]);
    expect([...types].sort()).toEqual(['0:eip155', '0:plain', '1:plain', '2:plain', '4:plain']);
  });

  it('agree on random signatures, recovering the same key or refusing with the same words', () => {
    const digest = new Uint8Array(randomBytes(32));
    const verdicts = new Set<string>();
    for (let round = 0; round < 300; round++) {
      const signature = new Uint8Array(randomBytes(64));
      // A random s is high about half the time, and a random r a point about half the time.
      const recoveryId = round % 2;
      const fromNative = outcome(native, digest, signature, recoveryId);
      expect(fromNative).toBe(outcome(wasm, digest, signature, recoveryId));
      verdicts.add(fromNative.startsWith('refused') ? fromNative : 'recovered');
    }
    expect(verdicts).toContain('recovered');
    expect(verdicts).toContain('refused: invalid signature: r or s out of range');
  });

  it('refuse bad signatures identically', () => {
    const digest = new Uint8Array(randomBytes(32));
    const key = randomKey();
    const good = signatureOf(createFeeMarket1559Tx({ ...base(), ...fees }).sign(key));
    const crafted = infinitySigner()(digest);
    const sig = (r: bigint | Uint8Array, s: bigint | Uint8Array): Uint8Array => {
      const out = new Uint8Array(64);
      out.set(typeof r === 'bigint' ? word(r) : r, 0);
      out.set(typeof s === 'bigint' ? word(s) : s, 32);
      return out;
    };
    const lowS = good.signature.subarray(32);
    const cases: Array<[string, Uint8Array, Uint8Array, number]> = [
      ['r off the curve', digest, sig(offCurveX(5n), lowS), 0],
      ['key at infinity', digest, sig(crafted.r, crafted.s), crafted.yParity],
      ['r zero', digest, sig(0n, lowS), 0],
      ['r at the order', digest, sig(N, lowS), 1],
      ['s zero', digest, sig(good.signature.subarray(0, 32), 0n), 0],
      ['high s', digest, sig(good.signature.subarray(0, 32), N - 1n), 0],
      ['recovery id 2', good.digest, good.signature, 2],
      ['short signature', good.digest, good.signature.subarray(0, 63), good.recoveryId],
      ['short digest', good.digest.subarray(1), good.signature, good.recoveryId],
    ];
    for (const [name, badDigest, badSignature, recoveryId] of cases) {
      const fromNative = outcome(native, badDigest, badSignature, recoveryId);
      expect({ name, verdict: fromNative }).toEqual({
        name,
        verdict: outcome(wasm, badDigest, badSignature, recoveryId),
      });
      expect(fromNative).toMatch(/^refused: /);
    }
  });
});

describe('the sender address', () => {
  beforeAll(() => initCrypto());

  it("is the library's, derived with the WebAssembly keccak", () => {
    for (let round = 0; round < 20; round++) {
      const key = randomKey();
      const tx = createFeeMarket1559Tx({ ...base(), ...fees }, { common: libraryCommon }).sign(key);
      expect(senderAddressOf(tx).equals(tx.getSenderAddress())).toBe(true);
      expect(senderAddressOf(tx).equals(createAddressFromPrivateKey(key))).toBe(true);
    }
  });
});
