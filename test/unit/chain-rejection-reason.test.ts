import { describe, expect, it } from '@jest/globals';
import { rejectionReason } from '../../src/daemon/chain/executor.js';

describe('rejectionReason', () => {
  it("words EthereumJS's intrinsic gas errors as the pool does, with their figures", () => {
    const fromRunTx = new Error(
      'INTRINSIC_GAS_TOO_LOW: tx gas limit 50000 is lower than the minimum gas limit of 53054 (vm hf=prague -> block number=1)',
    );
    expect(rejectionReason(fromRunTx)).toBe(
      'intrinsic gas too low: gas 50000, minimum needed 53054',
    );
    const fromTxCheck = new Error(
      'gasLimit is too low. The gasLimit is lower than the minimum gas limit of 21000 (prague), the gas limit is: 20000',
    );
    expect(rejectionReason(fromTxCheck)).toBe(
      'intrinsic gas too low: gas 20000, minimum needed 21000',
    );
    expect(rejectionReason(new Error('intrinsic gas exceeds the limit'))).toBe(
      'intrinsic gas too low',
    );
  });

  it("words EIP-3607's refusal of a sender with code as geth does", () => {
    const fromRunTx = new Error(
      'invalid sender address, address is not EOA (EIP-3607) (vm hf=prague -> block number=3 -> tx type=0)',
    );
    expect(rejectionReason(fromRunTx)).toBe('sender not an eoa');
  });

  it('keeps the first line of other errors, without the hardfork context', () => {
    const fromRunTx = new Error(
      'sender is not an EOA (vm hf=prague -> block number=3 -> tx type=2)\nstack',
    );
    expect(rejectionReason(fromRunTx)).toBe('sender is not an EOA');
  });
});
