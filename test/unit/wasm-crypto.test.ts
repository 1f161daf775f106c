import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { bridge } from '@polkadot/wasm-crypto';
import { SECP256K1_ORDER as N, bytesToBigInt } from '@ethereumjs/util';
import { Signature, SigningKey, keccak256 as ethersKeccak256 } from 'ethers';
import { InvalidInputError } from '../../src/shared/errors.js';
import { SECP256K1_P, infinitySigner, offCurveX, word } from '../helpers/bad-signatures.js';
import { callWasm } from '../../src/daemon/crypto/wasm-call.js';
import {
  initCrypto,
  keccak256,
  secp256k1Expand,
  secp256k1KeyPair,
  secp256k1RecoverPublicKey,
  secp256k1SignDigest,
  sha256,
} from '../../src/daemon/crypto/wasm-crypto.js';

/**
 * Refusals per bad input: the module used to break for good after about 1 900 of them (each
 * leaked 544 bytes of its 1 MiB stack).
 */
const ROUNDS = 2500;

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

const digest = createHash('sha256').update('a digest').digest();
const privateKey = word(0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318n);
const signingKey = new SigningKey(privateKey);

/**
 * Counts the calls of one round that did not refuse with `InvalidInputError` (a Jest matcher per
 * call would cost more than the calls themselves).
 */
let notRefused = 0;
function expectRefused(run: () => unknown): void {
  try {
    run();
    notRefused++;
  } catch (error) {
    if (!(error instanceof InvalidInputError)) notRefused++;
  }
}

/** Checks what a valid recovery, signing and hashing give, against ethers and node:crypto. */
function expectStillWorking(): void {
  const signature = secp256k1SignDigest(digest, privateKey);
  const ethersSignature = signingKey.sign(digest);
  expect(hex(signature.subarray(0, 64))).toBe(ethersSignature.serialized.slice(2, 130));
  expect(signature[64]).toBe(ethersSignature.v - 27);
  const recovered = secp256k1RecoverPublicKey(digest, signature.subarray(0, 64), signature[64]);
  expect(`0x${hex(recovered)}`).toBe(signingKey.publicKey);
  expect(`0x${hex(secp256k1Expand(secp256k1KeyPair(privateKey).subarray(32)))}`).toBe(
    signingKey.publicKey,
  );
  expect(`0x${hex(keccak256(digest))}`).toBe(ethersKeccak256(digest));
  expect(hex(sha256(digest))).toBe(createHash('sha256').update(digest).digest('hex'));
}

/** What the module keeps between calls: its shadow-stack pointer and its memory's size. */
function moduleState(): { stackPointer: number; memoryBytes: number } {
  const wasm = bridge.wasm as unknown as {
    memory: { buffer: ArrayBuffer };
    __wbindgen_add_to_stack_pointer(delta: number): number;
  };
  return {
    stackPointer: wasm.__wbindgen_add_to_stack_pointer(0),
    memoryBytes: wasm.memory.buffer.byteLength,
  };
}

describe('wasm crypto', () => {
  beforeAll(() => initCrypto());
  beforeEach(() => {
    notRefused = 0;
  });
  afterEach(() => expect(notRefused).toBe(0));

  it('computes Keccak-256, not SHA3-256', () => {
    const hash = Buffer.from(keccak256(new Uint8Array())).toString('hex');
    expect(hash).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });

  it('hashes any input, of any length', () => {
    for (const length of [0, 1, 31, 32, 33, 135, 136, 137, 1 << 20]) {
      const data = new Uint8Array(length).fill(length & 0xff);
      expect(`0x${hex(keccak256(data))}`).toBe(ethersKeccak256(data));
      expect(hex(sha256(data))).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('refuses every kind of unrecoverable signature, thousands of times, and keeps working', () => {
    const valid = secp256k1SignDigest(digest, privateKey);
    const [r, s] = [valid.subarray(0, 32), valid.subarray(32, 64)];
    const highS = concat(r, word(N - bytesToBigInt(s)));
    const crafted = infinitySigner()(digest);
    const infinity = {
      signature: concat(word(crafted.r), word(crafted.s)),
      recoveryId: crafted.yParity,
    };
    const offCurve = concat(word(offCurveX(5n)), s);
    const before = moduleState();
    const bad: [Uint8Array, Uint8Array, number][] = [
      [digest, offCurve, 0],
      [digest, infinity.signature, infinity.recoveryId],
      [digest, highS, valid[64] ^ 1],
      [digest, concat(word(0n), s), 0],
      [digest, concat(r, word(0n)), 0],
      [digest, concat(word(N), s), 0],
      [digest, concat(r, word(N)), 0],
      [digest, new Uint8Array(64).fill(0xff), 1],
      [digest, valid.subarray(0, 63), valid[64]],
      [digest, valid, valid[64]],
      [digest.subarray(0, 31), valid.subarray(0, 64), valid[64]],
      [new Uint8Array(), new Uint8Array(), 0],
      [digest, valid.subarray(0, 64), 2],
      [digest, valid.subarray(0, 64), -1],
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [badDigest, signature, recoveryId] of bad) {
        expectRefused(() => secp256k1RecoverPublicKey(badDigest, signature, recoveryId));
      }
    }
    expect(moduleState()).toEqual(before);
    expectStillWorking();
  });

  it('refuses bad keys and public keys thousands of times, and keeps working', () => {
    const before = moduleState();
    const badKeys = [word(0n), word(N), word(N + 1n), new Uint8Array(32).fill(0xff)];
    badKeys.push(new Uint8Array(), new Uint8Array(31).fill(1), new Uint8Array(33).fill(1));
    const publicKey = secp256k1KeyPair(privateKey).subarray(32);
    const badPublicKeys = [
      concat(Uint8Array.of(2), word(offCurveX(5n))),
      concat(Uint8Array.of(3), word(SECP256K1_P)),
      concat(Uint8Array.of(3), word(2n ** 256n - 1n)),
      concat(Uint8Array.of(4), publicKey.subarray(1)),
      publicKey.subarray(0, 32),
      new Uint8Array(),
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const key of badKeys) {
        expectRefused(() => secp256k1KeyPair(key));
        expectRefused(() => secp256k1SignDigest(digest, key));
      }
      expectRefused(() => secp256k1SignDigest(digest.subarray(1), privateKey));
      for (const badPublicKey of badPublicKeys) {
        expectRefused(() => secp256k1Expand(badPublicKey));
      }
    }
    expect(moduleState()).toEqual(before);
    expectStillWorking();
  });

  it('survives the module trapping on every export, past the checks that usually stop it', () => {
    const before = moduleState();
    const valid = Signature.from(signingKey.sign(digest));
    const offCurve = concat(word(offCurveX(5n)), Buffer.from(valid.s.slice(2), 'hex'));
    for (let round = 0; round < ROUNDS; round++) {
      expectRefused(() => callWasm('ext_secp_recover', [digest, offCurve], [0], 'refused'));
      expectRefused(() => callWasm('ext_secp_recover', [digest.subarray(1), offCurve], [4], 'x'));
      expectRefused(() => callWasm('ext_secp_from_seed', [word(0n)], [], 'refused'));
      expectRefused(() => callWasm('ext_secp_sign', [digest, word(N)], [], 'refused'));
      expectRefused(() => callWasm('ext_secp_pub_expand', [new Uint8Array(7)], [], 'refused'));
    }
    expect(moduleState()).toEqual(before);
    expectStillWorking();
  });
});
