import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Address, bytesToBigInt, concatBytes, hexToBytes } from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { devAddress, tempDataDir } from './chain-fixtures.js';

/** Init code that returns BALANCE(target) as one word, so a creation call reads a balance. */
function balanceProbe(target: Uint8Array): Uint8Array {
  return concatBytes(hexToBytes('0x73'), target, hexToBytes('0x3160005260206000f3'));
}

describe('eth_call isolation', () => {
  let chain: Chain;
  let tmp: ReturnType<typeof tempDataDir>;

  beforeEach(async () => {
    tmp = tempDataDir();
    chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis() });
  });
  afterEach(async () => {
    await chain.close();
    tmp.cleanup();
  });

  it('never lets one call see what an earlier or concurrent call wrote', async () => {
    const target = devAddress(5);
    const probe = { data: balanceProbe(target.bytes) };
    const before = bytesToBigInt((await chain.call(probe, 0n)).returnData);
    expect(before).toBe(10_000n * 10n ** 18n);

    const transfers = Array.from({ length: 5 }, () =>
      chain.call({ from: devAddress(3), to: target, value: 10n ** 18n }, 0n),
    );
    const probes = Array.from({ length: 5 }, () => chain.call(probe, 0n));
    await Promise.all(transfers);
    for (const result of await Promise.all(probes))
      expect(bytesToBigInt(result.returnData)).toBe(before);

    expect(bytesToBigInt((await chain.call(probe, 0n)).returnData)).toBe(before);
    expect(await chain.getBalance(target, 0n)).toBe(before);
  });

  it('estimates a plain transfer at exactly 21 000 gas, as geth does, and anything else by search', async () => {
    expect(await chain.estimateGas({ from: devAddress(1), to: devAddress(2), value: 1n }, 0n)).toBe(
      21_000n,
    );
    // A precompile has no code, but needs more than the intrinsic gas without input.
    const ecrecover = new Address(hexToBytes(`0x${'00'.repeat(19)}01`));
    const toPrecompile = await chain.estimateGas({ from: devAddress(1), to: ecrecover }, 0n);
    expect(toPrecompile).toBeGreaterThan(21_000n);
    const creation = await chain.estimateGas(
      { from: devAddress(1), data: balanceProbe(ecrecover.bytes) },
      0n,
    );
    expect(creation).toBeGreaterThan(21_000n);
  });
});
