/**
 * Fields of the call object that geth honours in eth_call and eth_estimateGas: fee fields that
 * are all zero mean no fees, whichever fields spell the zero.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Wallet } from 'ethers';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('call object fields', () => {
  let daemon: TestDaemon;
  /** An account without funds or code: a call from it that must pay for gas is refused. */
  const pauper = Wallet.createRandom().address.toLowerCase();
  const recipient = Wallet.createRandom().address.toLowerCase();

  beforeAll(async () => {
    daemon = await startTestDaemon();
  });
  afterAll(() => daemon?.stop());

  it.each([
    ['maxFeePerGas 0', { maxFeePerGas: '0x0' }],
    ['maxPriorityFeePerGas 0', { maxPriorityFeePerGas: '0x0' }],
    ['both zero', { maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' }],
    ['gasPrice 0', { gasPrice: '0x0' }],
  ])('runs a call with %s without fees, as geth', async (_label, fees) => {
    const call = { from: pauper, to: recipient, ...fees };
    expect(await daemon.rpc.call('eth_call', [call, 'latest'])).toBe('0x');
    expect(await daemon.rpc.call('eth_estimateGas', [call])).toBe('0x5208');
  });

  it('still makes a call with a non-zero fee cap pay for its gas', async () => {
    const error = await rpcError(
      daemon.rpc.call('eth_call', [{ from: pauper, to: recipient, maxFeePerGas: '0x1' }, 'latest']),
    );
    expect(error.code).toBe(-32000);
    expect(error.message).toMatch(/^insufficient funds for gas \* price \+ value/);
  });
});
