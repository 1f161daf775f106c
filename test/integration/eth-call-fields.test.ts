/**
 * Fields of the call object that geth honours: fee fields that are all zero mean no fees in
 * eth_call and eth_estimateGas, whichever fields spell the zero; an access list is charged and
 * warm in eth_call and eth_estimateGas, and carried by the transaction eth_sendTransaction and
 * eth_signTransaction make; an EIP-7702 authorization list is applied and charged in eth_call
 * and eth_estimateGas (viem's and cast's set-code flows estimate with it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Transaction, Wallet, getAddress, toQuantity } from 'ethers';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { DEV_CHAIN_ID, waitForReceipt } from '../helpers/dev-chain.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DEV = DEV_ADDRESSES[0].toLowerCase();
/** Intrinsic gas of a transfer, and what a list of one address with one key adds (EIP-2930). */
const TRANSFER_GAS = 21_000;
const ADDRESS_GAS = 2_400;
const KEY_GAS = 1_900;
const SLOT = `0x${'00'.repeat(31)}01`;
/** What EIP-7702 charges per authorization in intrinsic gas (PER_EMPTY_ACCOUNT_COST). */
const AUTHORIZATION_GAS = 25_000;
/** Runtime that returns the single byte 0x2a, whoever runs it. */
const RETURNS_2A = '0x602a60005360016000f3';

/**
 * Init code, run as a creation call, that answers the gas BALANCE of `target` took as one word
 * (with the PUSH20 before it and the POP and GAS after: 2 607 cold, 107 warm).
 */
const balanceCostProbe = (target: string) => `0x5a73${target.slice(2)}31505a900360005260206000f3`;

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

  it('charges an access list in eth_estimateGas: 21000 + 2400 + 1900 for one address and key', async () => {
    const transfer = { from: DEV, to: recipient, value: '0x1' };
    const accessList = [{ address: recipient, storageKeys: [SLOT] }];
    expect(Number(await daemon.rpc.call<string>('eth_estimateGas', [transfer]))).toBe(TRANSFER_GAS);
    expect(
      Number(await daemon.rpc.call<string>('eth_estimateGas', [{ ...transfer, accessList }])),
    ).toBe(TRANSFER_GAS + ADDRESS_GAS + KEY_GAS);
  });

  it('starts the entries of an access list warm in eth_call, and charges it', async () => {
    const target = Wallet.createRandom().address.toLowerCase();
    const probe = { data: balanceCostProbe(target) };
    const accessList = [{ address: target, storageKeys: [] }];
    // Without the list first: its kept outcome must not answer the call that has one.
    expect(Number(await daemon.rpc.call<string>('eth_call', [probe, 'latest']))).toBe(2_607);
    expect(
      Number(await daemon.rpc.call<string>('eth_call', [{ ...probe, accessList }, 'latest'])),
    ).toBe(107);
    const short = await rpcError(
      daemon.rpc.call('eth_call', [
        {
          from: pauper,
          to: recipient,
          gas: `0x${(TRANSFER_GAS + ADDRESS_GAS - 1).toString(16)}`,
          accessList,
        },
        'latest',
      ]),
    );
    expect(short.code).toBe(-32000);
    expect(short.message).toMatch(/^intrinsic gas too low/);
  });

  it('signs an access list into eth_signTransaction: type 1 with a gas price, type 2 without', async () => {
    const accessList = [{ address: recipient, storageKeys: [SLOT] }];
    const sign = async (fees: Record<string, string>) => {
      const { raw } = await daemon.rpc.call<{ raw: string }>('eth_signTransaction', [
        {
          from: DEV,
          to: recipient,
          value: '0x1',
          gas: '0x7530',
          nonce: '0x100',
          accessList,
          ...fees,
        },
      ]);
      return Transaction.from(raw);
    };
    const legacyPriced = await sign({ gasPrice: '0x3b9aca00' });
    expect(legacyPriced.type).toBe(1);
    const signedList = [{ address: getAddress(recipient), storageKeys: [SLOT] }];
    expect(legacyPriced.accessList).toEqual(signedList);
    const feeMarket = await sign({});
    expect(feeMarket.type).toBe(2);
    expect(feeMarket.accessList).toEqual(signedList);
  });

  it('sends an access list with eth_sendTransaction: mined, charged and shown', async () => {
    const accessList = [{ address: recipient, storageKeys: [SLOT] }];
    const hash = await daemon.rpc.call<string>('eth_sendTransaction', [
      { from: DEV, to: recipient, value: '0x1', accessList },
    ]);
    const receipt = await waitForReceipt(daemon.rpc, hash);
    expect(receipt.status).toBe('0x1');
    expect(Number(receipt.gasUsed)).toBe(TRANSFER_GAS + ADDRESS_GAS + KEY_GAS);
    const tx = await daemon.rpc.call<{ type: string; accessList: unknown }>(
      'eth_getTransactionByHash',
      [hash],
    );
    expect(tx.type).toBe('0x2');
    expect(tx.accessList).toEqual(accessList);
  });

  it('charges a call without fees its intrinsic gas first, as a transaction and geth do', async () => {
    // Init code answering gasleft() after GAS: 21000 + 32000 + 7 non-zero bytes (16) and 2 zero
    // bytes (4) + 1 initcode word (2) = 53122 intrinsic, then 2 for GAS.
    const gasLeftProbe = '0x5a60005260206000f3';
    const gas = '0x186a0';
    const feeless = await daemon.rpc.call<string>('eth_call', [
      { data: gasLeftProbe, gas },
      'latest',
    ]);
    const paying = await daemon.rpc.call<string>('eth_call', [
      { from: DEV, data: gasLeftProbe, gas, gasPrice: '0x174876e800' },
      'latest',
    ]);
    expect(Number(feeless)).toBe(100_000 - 53_122 - 2);
    expect(paying).toBe(feeless);
  });

  it('refuses a call without fees whose gas does not cover its intrinsic gas or data floor', async () => {
    const short = await rpcError(
      daemon.rpc.call('eth_call', [{ to: recipient, gas: '0x5207' }, 'latest']),
    );
    expect(short).toMatchObject({
      code: -32000,
      message: 'intrinsic gas too low: gas 20999, minimum needed 21000',
    });
    const floor = await rpcError(
      daemon.rpc.call('eth_call', [{ to: recipient, gas: '0x521c', data: '0x01' }, 'latest']),
    );
    expect(floor).toMatchObject({
      code: -32000,
      message: 'insufficient gas for floor data gas cost: gas 21020, minimum needed 21040',
    });
  });

  it('applies and charges an EIP-7702 authorization list in calls, and signs it into sends', async () => {
    const delegate = Wallet.createRandom().address.toLowerCase();
    await daemon.rpc.call('hardhat_setCode', [delegate, RETURNS_2A]);
    const authority = Wallet.createRandom();
    const signed = authority.authorizeSync({ address: delegate, nonce: 0n, chainId: DEV_CHAIN_ID });
    const authorizationList = [
      {
        chainId: toQuantity(signed.chainId),
        address: signed.address.toLowerCase(),
        nonce: toQuantity(signed.nonce),
        yParity: toQuantity(signed.signature.yParity),
        r: toQuantity(signed.signature.r),
        s: toQuantity(signed.signature.s),
      },
    ];
    const call = { from: DEV, to: authority.address.toLowerCase(), authorizationList };
    // The authority has no code of its own: only the applied delegation runs the delegate's.
    expect(await daemon.rpc.call('eth_call', [{ ...call, authorizationList: undefined }])).toBe(
      '0x',
    );
    expect(await daemon.rpc.call('eth_call', [call, 'latest'])).toBe('0x2a');
    const estimate = Number(await daemon.rpc.call<string>('eth_estimateGas', [call]));
    expect(estimate).toBeGreaterThan(TRANSFER_GAS + AUTHORIZATION_GAS);

    const empty = await rpcError(
      daemon.rpc.call('eth_estimateGas', [{ ...call, authorizationList: [] }]),
    );
    expect(empty.code).toBe(-32000);
    expect(empty.message).toMatch(/^EIP-7702 transaction with empty auth list/);
    const creation = await rpcError(
      daemon.rpc.call('eth_call', [{ from: DEV, data: RETURNS_2A, authorizationList }, 'latest']),
    );
    expect(creation.code).toBe(-32000);
    expect(creation.message).toMatch(/^EIP-7702 transaction cannot be used to create contract/);
    // Signed with a managed key, the list makes a type-4 transaction that delegates on chain.
    const { raw } = await daemon.rpc.call<{ raw: string }>('eth_signTransaction', [call]);
    const typed = Transaction.from(raw);
    expect(typed.type).toBe(4);
    expect(typed.authorizationList?.[0].address.toLowerCase()).toBe(delegate);
    const priced = await rpcError(
      daemon.rpc.call('eth_sendTransaction', [{ ...call, gasPrice: '0x3b9aca00' }]),
    );
    expect(priced.code).toBe(-32602);
    expect(priced.message).toMatch(/EIP-7702 transaction, which takes maxFeePerGas/);
    const hash = await daemon.rpc.call<string>('eth_sendTransaction', [call]);
    expect((await waitForReceipt(daemon.rpc, hash)).status).toBe('0x1');
    const code = await daemon.rpc.call<string>('eth_getCode', [authority.address, 'latest']);
    expect(code).toBe(`0xef0100${delegate.slice(2)}`);
    expect(await daemon.rpc.call('eth_call', [{ to: authority.address }, 'latest'])).toBe('0x2a');
  });
});
