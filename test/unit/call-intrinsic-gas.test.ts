import { describe, expect, it } from '@jest/globals';
import { createLegacyTx } from '@ethereumjs/tx';
import { createAddressFromString } from '@ethereumjs/util';
import { gasAfterIntrinsic } from '../../src/daemon/chain/call-intrinsic-gas.js';
import { createChainCommon } from '../../src/daemon/chain/common.js';
import { TransactionRejectedError } from '../../src/shared/errors.js';

const common = createChainCommon(31337n);
const to = createAddressFromString(`0x${'aa'.repeat(20)}`);

/** Data of `length` bytes, about a third of them zero, from a fixed seed. */
function someData(length: number, seed: number): Uint8Array {
  const data = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    data[i] = state % 3 === 0 ? 0 : (state >>> 8) & 0xff || 1;
  }
  return data;
}

/** EthereumJS's own figures for the transaction the call stands for. */
function libraryFigures(data: Uint8Array, creates: boolean) {
  const tx = createLegacyTx(
    { to: creates ? undefined : to, data, gasLimit: 30_000_000n, gasPrice: 0n },
    { common },
  );
  return { intrinsic: tx.getIntrinsicGas(), minimum: tx.getMinimumGasLimit() };
}

describe('gasAfterIntrinsic', () => {
  const cases = [0, 1, 4, 31, 32, 33, 68, 1_000, 24_577].flatMap((length) =>
    [false, true].map((creates) => ({ length, creates })),
  );

  it.each(cases)(
    'takes what EthereumJS charges a transaction with $length bytes of data (creates: $creates)',
    ({ length, creates }) => {
      const data = someData(length, length + 7);
      const { intrinsic, minimum } = libraryFigures(data, creates);
      expect(gasAfterIntrinsic(common, data, creates, 30_000_000n)).toBe(30_000_000n - intrinsic);
      expect(gasAfterIntrinsic(common, data, creates, minimum)).toBe(minimum - intrinsic);
      expect(() => gasAfterIntrinsic(common, data, creates, minimum - 1n)).toThrow(
        TransactionRejectedError,
      );
    },
  );

  it('names the intrinsic gas, or the EIP-7623 floor when that is the higher', () => {
    expect(() => gasAfterIntrinsic(common, new Uint8Array(), false, 20_999n)).toThrow(
      'intrinsic gas too low: gas 20999, minimum needed 21000',
    );
    // One non-zero byte: 21016 intrinsic, 21040 floor (four tokens of ten gas).
    expect(() => gasAfterIntrinsic(common, new Uint8Array([1]), false, 21_020n)).toThrow(
      'insufficient gas for floor data gas cost: gas 21020, minimum needed 21040',
    );
  });
});
