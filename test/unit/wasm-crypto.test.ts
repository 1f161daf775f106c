import { beforeAll, describe, expect, it } from '@jest/globals';
import { initCrypto, keccak256 } from '../../src/daemon/crypto/wasm-crypto.js';

describe('wasm crypto', () => {
  beforeAll(() => initCrypto());

  it('computes Keccak-256, not SHA3-256', () => {
    const hash = Buffer.from(keccak256(new Uint8Array())).toString('hex');
    expect(hash).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });
});
