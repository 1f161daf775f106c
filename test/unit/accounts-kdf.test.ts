import { beforeAll, describe, expect, it } from '@jest/globals';
import { decryptKey, encryptKey } from '../../src/daemon/accounts/keystore.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';

const KEY = new Uint8Array(Buffer.from('ac'.repeat(32), 'hex'));

beforeAll(() => initCrypto());

describe('key derivation', () => {
  it('runs a standard-strength scrypt off the event loop', async () => {
    const ticks = [performance.now()];
    const timer = setInterval(() => ticks.push(performance.now()), 5);
    const file = await encryptKey(KEY, 'passphrase');
    const key = await decryptKey(file, 'passphrase');
    clearInterval(timer);
    ticks.push(performance.now());

    expect(Buffer.from(key).toString('hex')).toBe('ac'.repeat(32));
    expect(file.crypto.kdfparams).toMatchObject({ n: 262144, r: 8, p: 1 });
    const elapsed = ticks[ticks.length - 1] - ticks[0];
    const longestGap = Math.max(...ticks.slice(1).map((tick, index) => tick - ticks[index]));
    // Two scrypt runs of 256 MiB take several hundred ms. Run on the event loop, each would be
    // one gap between timer ticks that long; on the thread pool the timer keeps ticking.
    expect(elapsed).toBeGreaterThan(300);
    expect(longestGap).toBeLessThan(elapsed / 4);
  });
});
