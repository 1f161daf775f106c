/**
 * eth_call and eth_estimateGas take geth's state override set as their third parameter: per
 * address a balance, nonce, code, and the whole storage (`state`) or some slots (`stateDiff`),
 * and `movePrecompileToAddress`. The overrides hold for that call only: neither the next call nor the kept call outcomes see
 * them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Wallet } from 'ethers';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { waitForReceipt } from '../helpers/dev-chain.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DEV = DEV_ADDRESSES[0].toLowerCase();
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
/** Runtime that answers slot 0 + slot 1 of its storage as one word. */
const SUM_RUNTIME = '6000546001540160005260206000f3';
/** Init code that stores 5 in slot 0 and 6 in slot 1, then deploys SUM_RUNTIME. */
const SUM_INIT = `0x60056000556006600155600f6016600039600f6000f3${SUM_RUNTIME}`;
/** Init code, run as a creation call, that answers the balance of `target` as one word. */
const balanceProbe = (target: string) => `0x73${target.slice(2)}3160005260206000f3`;

describe('state overrides of eth_call and eth_estimateGas', () => {
  let daemon: TestDaemon;
  let sum: string;
  const call = (params: unknown[]) => daemon.rpc.call<string>('eth_call', params);

  beforeAll(async () => {
    daemon = await startTestDaemon();
    const hash = await daemon.rpc.call<string>('eth_sendTransaction', [
      { from: DEV, data: SUM_INIT, gas: '0x30d40' },
    ]);
    const receipt = await waitForReceipt(daemon.rpc, hash);
    expect(receipt.status).toBe('0x1');
    sum = receipt.contractAddress as string;
  });
  afterAll(() => daemon?.stop());

  it('reads slots through stateDiff (the others kept) and state (the others cleared)', async () => {
    expect(Number(await call([{ to: sum }, 'latest']))).toBe(11);
    const hundred = { [slot(0)]: slot(100) };
    expect(Number(await call([{ to: sum }, 'latest', { [sum]: { stateDiff: hundred } }]))).toBe(
      106,
    );
    expect(Number(await call([{ to: sum }, 'latest', { [sum]: { state: hundred } }]))).toBe(100);
    // Another gas makes a request the kept outcomes do not hold: it runs, on unchanged state.
    expect(Number(await call([{ to: sum, gas: '0x186a0' }, 'latest']))).toBe(11);
  });

  it('runs code and balance given for an address', async () => {
    const target = Wallet.createRandom().address.toLowerCase();
    expect(Number(await call([{ data: balanceProbe(target) }, 'latest']))).toBe(0);
    expect(
      Number(
        await call([{ data: balanceProbe(target) }, 'latest', { [target]: { balance: '0x1234' } }]),
      ),
    ).toBe(0x1234);
    const code = `0x${SUM_RUNTIME}`;
    expect(
      Number(
        await call([
          { to: target },
          'latest',
          { [target]: { code, state: { [slot(1)]: slot(42) } } },
        ]),
      ),
    ).toBe(42);
  });

  it('estimates gas for a sender whose balance is overridden', async () => {
    const pauper = Wallet.createRandom().address.toLowerCase();
    const transfer = { from: pauper, to: DEV, value: '0x1', gasPrice: '0x3b9aca00' };
    const poor = await rpcError(daemon.rpc.call('eth_estimateGas', [transfer]));
    expect(poor.message).toMatch(/^insufficient funds/);
    const rich = { [pauper]: { balance: '0xde0b6b3a7640000' } };
    expect(await daemon.rpc.call('eth_estimateGas', [transfer, 'latest', rich])).toBe('0x5208');
  });

  it('moves a precompile and runs code put at its address, for that call only', async () => {
    const sha256 = '0x0000000000000000000000000000000000000002';
    const moved = '0x00000000000000000000000000000000000000c3';
    const emptySha256 = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const answers42 = '0x602a60005260206000f3';
    expect(await call([{ to: sha256 }, 'latest'])).toBe(emptySha256);
    const overrides = { [sha256]: { movePrecompileToAddress: moved, code: answers42 } };
    expect(await call([{ to: moved }, 'latest', overrides])).toBe(emptySha256);
    expect(Number(await call([{ to: sha256 }, 'latest', overrides]))).toBe(42);
    // The next calls (another gas: not a kept outcome) see the precompile where it was.
    expect(await call([{ to: sha256, gas: '0x186a0' }, 'latest'])).toBe(emptySha256);
    expect(await call([{ to: moved, gas: '0x186a0' }, 'latest'])).toBe('0x');
    const notPrecompile = await rpcError(
      call([{ to: moved }, 'latest', { [moved]: { movePrecompileToAddress: sha256 } }]),
    );
    expect(notPrecompile.code).toBe(-32000);
    expect(notPrecompile.message).toMatch(/^account 0x0{38}[cC]3 is not a precompile$/);
    const targetOverridden = await rpcError(
      call([
        { to: moved },
        'latest',
        { [sha256]: { movePrecompileToAddress: moved }, [moved]: { balance: '0x1' } },
      ]),
    );
    expect(targetOverridden.message).toMatch(/is already overridden$/);
  });

  it('refuses an account with both state and stateDiff, as geth', async () => {
    const error = await rpcError(
      call([{ to: sum }, 'latest', { [sum]: { state: {}, stateDiff: {} } }]),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("has both 'state' and 'stateDiff'");
  });
});
