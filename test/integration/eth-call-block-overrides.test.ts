/**
 * eth_call and eth_estimateGas take geth's block overrides as their fourth parameter: the call
 * runs in a block whose number, time, gas limit, fee recipient, prevRandao, base fee and blob
 * base fee are replaced. The overrides hold for that call only, on the main thread as on a call
 * thread, and the kept call outcomes never answer for them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DEV = DEV_ADDRESSES[0].toLowerCase();
/** Creation code that answers the value `opcode` pushes, as one word. */
const probe = (opcode: string) => `0x${opcode}60005260206000f3`;
/**
 * Runtime code that answers BLOCKHASH(number), as one word: run as code of an account (as
 * creation code, a hash beginning with 0xef would be refused as the new contract's code).
 */
const blockHashProbe = (number: bigint) =>
  `0x67${number.toString(16).padStart(16, '0')}4060005260206000f3`;
const PROBE = '0x00000000000000000000000000000000000000ce';
/** Creation code that reverts while NUMBER is below 0x1000. */
const NEEDS_NUMBER_0X1000 = '0x4361100011600a5700005b600080fd';
/** Runtime that stores 1 in slot 0: over 22 000 gas. */
const STORES_ONE = '0x600160005500';
const word = (value: bigint | string) => `0x${BigInt(value).toString(16).padStart(64, '0')}`;
const FEE_RECIPIENT = '0x00000000000000000000000000000000000000fe';
const RANDAO = `0x${'ab'.repeat(32)}`;

describe.each([
  ['on the main thread', '0'],
  ['on a call thread', '1'],
])('block overrides of eth_call and eth_estimateGas %s', (_where, threads) => {
  let daemon: TestDaemon;
  const call = (params: unknown[]) => daemon.rpc.call<string>('eth_call', params);
  const head = async () => BigInt(await daemon.rpc.call<string>('eth_blockNumber', []));

  beforeAll(async () => {
    daemon = await startTestDaemon(['--json-rpc.evm-threads', threads]);
  });
  afterAll(() => daemon?.stop());

  it('runs the call with the overridden header fields', async () => {
    const overrides = {
      number: '0x12345',
      time: '0x6000000',
      gasLimit: '0x1c9c380',
      feeRecipient: FEE_RECIPIENT,
      prevRandao: RANDAO,
      blobBaseFee: '0x7',
    };
    const read = (opcode: string) => call([{ data: probe(opcode) }, 'latest', null, overrides]);
    expect(await read('43')).toBe(word(0x12345n));
    expect(await read('42')).toBe(word(0x6000000n));
    expect(await read('45')).toBe(word(0x1c9c380n));
    expect(await read('41')).toBe(word(FEE_RECIPIENT));
    expect(await read('44')).toBe(RANDAO);
    expect(await read('4a')).toBe(word(7n));
  });

  it('takes older geth names (coinbase, random) and a prevRandao given as a quantity', async () => {
    const overrides = { coinbase: FEE_RECIPIENT, random: '0x1234' };
    expect(await call([{ data: probe('41') }, 'latest', null, overrides])).toBe(
      word(FEE_RECIPIENT),
    );
    expect(await call([{ data: probe('44') }, 'latest', null, overrides])).toBe(word(0x1234n));
  });

  it('sets the base fee of a call that pays fees; one without fees sees zero, as geth', async () => {
    const overrides = { baseFeePerGas: '0x2a' };
    const paying = { from: DEV, data: probe('48'), gasPrice: '0x3b9aca00' };
    expect(await call([paying, 'latest', null, overrides])).toBe(word(0x2an));
    expect(await call([{ data: probe('48') }, 'latest', null, overrides])).toBe(word(0n));
  });

  it('answers BLOCKHASH of blocks past the chain with zero, and of real blocks with their hash', async () => {
    const number = await head();
    const block = await daemon.rpc.call<{ hash: string }>('eth_getBlockByNumber', [
      `0x${number.toString(16)}`,
      false,
    ]);
    const overrides = { number: `0x${(number + 10n).toString(16)}` };
    const blockHash = (of: bigint) =>
      call([{ to: PROBE }, 'latest', { [PROBE]: { code: blockHashProbe(of) } }, overrides]);
    expect(await blockHash(number)).toBe(block.hash);
    expect(await blockHash(number + 5n)).toBe(word(0n));
  });

  it('is never answered from, nor kept in, the outcomes of calls without overrides', async () => {
    const plain = [{ data: probe('43') }, 'latest'];
    const real = await call(plain);
    expect(await call([...plain, null, { number: '0x7777777' }])).toBe(word(0x7777777n));
    expect(await call(plain)).toBe(real);
    expect(await call([...plain, null, { number: '0x7777778' }])).toBe(word(0x7777778n));
  });

  it('estimates gas in the overridden block', async () => {
    const request = { from: DEV, data: NEEDS_NUMBER_0X1000 };
    const refused = await rpcError(daemon.rpc.call('eth_estimateGas', [request]));
    expect(refused.message).toBe('execution reverted');
    const gas = await daemon.rpc.call<string>('eth_estimateGas', [
      request,
      'latest',
      null,
      { number: '0x2000' },
    ]);
    expect(BigInt(gas)).toBeGreaterThan(53_000n);
    // The overridden gas limit bounds the search of a request without gas, as geth's.
    const storer = '0x00000000000000000000000000000000000000cd';
    const capped = await rpcError(
      daemon.rpc.call('eth_estimateGas', [
        { from: DEV, to: storer },
        'latest',
        { [storer]: { code: STORES_ONE } },
        { gasLimit: '0x6000' },
      ]),
    );
    expect(capped.message).toBe('gas required exceeds allowance (24576)');
  });

  it('refuses unknown fields, withdrawals and beaconRoot with -32602 naming the field', async () => {
    const plain = { data: probe('43') };
    const unknown = await rpcError(call([plain, 'latest', null, { blockNumber: '0x1' }]));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toBe(
      'invalid params: argument 3 (blockOverrides): unknown field blockNumber',
    );
    const withdrawals = await rpcError(call([plain, 'latest', null, { withdrawals: [] }]));
    expect(withdrawals.code).toBe(-32602);
    expect(withdrawals.message).toMatch(/block override "withdrawals" is not supported/);
    const beacon = await rpcError(
      daemon.rpc.call('eth_estimateGas', [plain, 'latest', null, { beaconRoot: word(1n) }]),
    );
    expect(beacon.code).toBe(-32602);
    expect(beacon.message).toMatch(/block override "beaconRoot" is not supported/);
    const both = await rpcError(
      call([plain, 'latest', null, { feeRecipient: FEE_RECIPIENT, coinbase: DEV }]),
    );
    expect(both.code).toBe(-32602);
  });
});
