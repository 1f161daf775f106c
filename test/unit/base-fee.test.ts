import { describe, expect, it } from '@jest/globals';
import { nextBaseFee } from '../../src/daemon/chain/base-fee.js';
import { MAX_MINIMUM_GAS_PRICE } from '../../src/shared/minimum-gas-price.js';

describe('nextBaseFee', () => {
  const full = { gasUsed: 30_000_000n, gasLimit: 30_000_000n };

  it('rises 1/8 after a full block and never below the floor', () => {
    expect(nextBaseFee({ ...full, baseFeePerGas: 800n }, 1n)).toBe(900n);
    expect(nextBaseFee({ baseFeePerGas: 800n, gasUsed: 0n, gasLimit: 30_000_000n }, 750n)).toBe(
      750n,
    );
  });

  it('never passes 2^256-1, so a run of full blocks cannot make a header unencodable', () => {
    expect(nextBaseFee({ ...full, baseFeePerGas: 2n ** 256n - 2n }, 1n)).toBe(2n ** 256n - 1n);
  });

  it('keeps gas (uint64) × the largest floor within a uint256', () => {
    expect((2n ** 64n - 1n) * MAX_MINIMUM_GAS_PRICE < 2n ** 256n).toBe(true);
  });
});
