/**
 * Wrong parameters to every public eth_* method of the spec (the filter methods aside) are
 * refused with -32602 and a message naming the argument; raw transactions that cannot be valid
 * (nonce too low, wrong chain id, balance too low) are refused at submission with geth's wording
 * and leave no trace on the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Wallet, concat, decodeRlp, encodeRlp, keccak256, parseEther } from 'ethers';
import {
  DEV_CHAIN_ID,
  MIN_GAS_PRICE,
  devWallet,
  sendAndWait,
  signDynamicFeeTx,
} from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { rpcError } from '../helpers/rpc-errors.js';

const ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const HASH = `0x${'ab'.repeat(32)}`;
const BAD_HEX = '0xzz';
const ODD_LENGTH = '0xabc';
const SHORT_ADDRESS = `0x${'12'.repeat(19)}`;
const LONG_ADDRESS = `0x${'12'.repeat(21)}`;
const SHORT_HASH = `0x${'ab'.repeat(31)}`;
const LEADING_ZERO = '0x01';

interface BadCall {
  method: string;
  params: unknown[];
  /** Position of the offending argument; null when no single argument is at fault. */
  argument: number | null;
  what: string;
}

const bad = (method: string, what: string, argument: number | null, params: unknown[]) => ({
  method,
  params,
  argument,
  what,
});

const BAD_CALLS: BadCall[] = [
  bad('eth_getBalance', 'odd-length address', 0, [ODD_LENGTH, 'latest']),
  bad('eth_getBalance', '21-byte address', 0, [LONG_ADDRESS, 'latest']),
  bad('eth_getBalance', 'address as a number', 0, [123, 'latest']),
  bad('eth_getBalance', 'block with a leading zero', 1, [ADDRESS, LEADING_ZERO]),
  bad('eth_getBalance', 'unknown block tag', 1, [ADDRESS, 'lastest']),
  bad('eth_getBalance', 'no address', 0, []),
  bad('eth_getStorageAt', 'bad hex position', 1, [ADDRESS, BAD_HEX, 'latest']),
  bad('eth_getStorageAt', 'odd-length address', 0, [ODD_LENGTH, '0x0', 'latest']),
  bad('eth_getStorageAt', 'no position', 1, [ADDRESS]),
  bad('eth_getTransactionCount', 'block as a boolean', 1, [ADDRESS, true]),
  bad('eth_getTransactionCount', '19-byte address', 0, [SHORT_ADDRESS, 'latest']),
  bad('eth_getBlockTransactionCountByNumber', 'leading zero', 0, [LEADING_ZERO]),
  bad('eth_getBlockTransactionCountByNumber', 'a boolean', 0, [true]),
  bad('eth_getBlockTransactionCountByNumber', 'no block', 0, []),
  bad('eth_getBlockTransactionCountByHash', '31-byte hash', 0, [SHORT_HASH]),
  bad('eth_getBlockTransactionCountByHash', 'bad hex', 0, [BAD_HEX]),
  bad('eth_getBlockTransactionCountByHash', 'no hash', 0, []),
  bad('eth_getCode', 'bad hex block', 1, [ADDRESS, BAD_HEX]),
  bad('eth_getCode', '19-byte address', 0, [SHORT_ADDRESS, 'latest']),
  bad('eth_sign', 'odd-length message', 1, [ADDRESS, ODD_LENGTH]),
  bad('eth_sign', 'short address', 0, [SHORT_ADDRESS, '0x00']),
  bad('eth_sendTransaction', 'short from address', 0, [{ from: SHORT_ADDRESS, to: ADDRESS }]),
  bad('eth_sendTransaction', 'a string instead of an object', 0, ['0x00']),
  bad('eth_sendTransaction', 'no transaction', 0, []),
  bad('eth_sendRawTransaction', 'odd-length data', 0, [ODD_LENGTH]),
  bad('eth_sendRawTransaction', 'no 0x prefix', 0, ['abcd']),
  bad('eth_sendRawTransaction', 'an object', 0, [{}]),
  bad('eth_sendRawTransaction', 'no data', 0, []),
  bad('eth_call', 'short to address', 0, [{ to: SHORT_ADDRESS }, 'latest']),
  bad('eth_call', 'odd-length data', 0, [{ to: ADDRESS, data: ODD_LENGTH }, 'latest']),
  bad('eth_call', 'value with a leading zero', 0, [{ to: ADDRESS, value: LEADING_ZERO }, 'latest']),
  bad('eth_call', 'block with a leading zero', 1, [{ to: ADDRESS }, LEADING_ZERO]),
  bad('eth_call', 'no call object', 0, []),
  bad('eth_estimateGas', 'short to address', 0, [{ to: SHORT_ADDRESS }]),
  bad('eth_estimateGas', 'gas not hex', 0, [{ to: ADDRESS, gas: 'abc' }]),
  bad('eth_estimateGas', 'no call object', 0, []),
  bad('eth_getBlockByNumber', 'leading zero', 0, [LEADING_ZERO, false]),
  bad('eth_getBlockByNumber', 'full flag as a string', 1, ['0x1', 'yes']),
  bad('eth_getBlockByNumber', 'no full flag', 1, ['0x1']),
  bad('eth_getBlockByHash', '2-byte hash', 0, ['0x1234', false]),
  bad('eth_getBlockByHash', 'full flag as a number', 1, [HASH, 1]),
  bad('eth_getBlockByHash', 'no hash', 0, []),
  bad('eth_getTransactionByHash', 'odd-length hash', 0, [`${HASH}0`]),
  bad('eth_getTransactionByHash', 'hash as a number', 0, [12]),
  bad('eth_getTransactionByHash', 'no hash', 0, []),
  bad('eth_getTransactionByBlockHashAndIndex', 'short hash', 0, ['0x12', '0x0']),
  bad('eth_getTransactionByBlockHashAndIndex', 'index with a leading zero', 1, [HASH, '0x00']),
  bad('eth_getTransactionByBlockHashAndIndex', 'no index', 1, [HASH]),
  bad('eth_getTransactionByBlockNumberAndIndex', 'block with a leading zero', 0, [
    LEADING_ZERO,
    '0x0',
  ]),
  bad('eth_getTransactionByBlockNumberAndIndex', 'bad hex index', 1, ['0x1', BAD_HEX]),
  bad('eth_getTransactionbyBlockNumberAndIndex', 'block with a leading zero', 0, [
    LEADING_ZERO,
    '0x0',
  ]),
  bad('eth_getTransactionbyBlockNumberAndIndex', 'no index', 1, ['0x1']),
  bad('eth_getTransactionReceipt', 'short hash', 0, ['0x12']),
  bad('eth_getTransactionReceipt', 'no hash', 0, []),
  bad('eth_getProof', 'short address', 0, [SHORT_ADDRESS, [], 'latest']),
  bad('eth_getProof', 'keys not an array', 1, [ADDRESS, '0x0', 'latest']),
  bad('eth_getProof', 'bad hex key', 1, [ADDRESS, [BAD_HEX], 'latest']),
  bad('eth_getProof', 'block with a leading zero', 2, [ADDRESS, [], LEADING_ZERO]),
  bad('eth_getStorageValues', 'a short address as a key', 0, [{ [SHORT_ADDRESS]: [HASH] }]),
  bad('eth_getStorageValues', 'keys not an array', 0, [{ [ADDRESS]: HASH }]),
  bad('eth_getStorageValues', 'bad hex key', 0, [{ [ADDRESS]: [BAD_HEX] }]),
  bad('txpool_contentFrom', 'an odd-length address', 0, [ODD_LENGTH]),
  bad('eth_blockNumber', 'an argument too many', null, ['0x1']),
  bad('eth_chainId', 'an argument too many', null, ['0x1']),
  bad('eth_gasPrice', 'an argument too many', null, [1]),
  bad('eth_syncing', 'an argument too many', null, [true]),
  bad('eth_protocolVersion', 'an argument too many', null, ['x']),
  bad('eth_accounts', 'an argument too many', null, ['x']),
  bad('eth_coinbase', 'an argument too many', null, ['x']),
];

describe('invalid parameters and invalid transactions', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
  });
  afterAll(() => daemon?.stop());

  it.each(BAD_CALLS.map((call) => [call.method, call.what, call] as const))(
    '%s refuses %s with -32602 naming the argument',
    async (_method, _what, call) => {
      const error = await rpcError(daemon.rpc.call(call.method, call.params));
      expect({ code: error.code, message: error.message }).toEqual({
        code: -32602,
        message:
          call.argument === null
            ? expect.stringMatching(/argument/)
            : expect.stringMatching(new RegExp(`argument ${call.argument} \\(\\w+\\)`)),
      });
    },
  );

  it("refuses eth_getStorageValues without slots or past 1024 of them, in geth's words", async () => {
    const refusal = async (requests: Record<string, string[]>) => {
      const error = await rpcError(daemon.rpc.call('eth_getStorageValues', [requests]));
      return { code: error.code, message: error.message };
    };
    expect(await refusal({ [ADDRESS]: [] })).toEqual({ code: -32602, message: 'empty request' });
    const slots = Array.from({ length: 1025 }, (_, index) => `0x${index.toString(16)}`);
    expect(
      await refusal({ [ADDRESS]: slots.slice(0, 600), [HASH.slice(0, 42)]: slots.slice(600) }),
    ).toEqual({ code: -32602, message: 'too many slots (max 1024)' });
  });

  describe('raw transactions that cannot be valid', () => {
    const sender = devWallet(5);
    const bystander = devWallet(6);
    const refused: string[] = [];
    let nonceBefore: string;
    let balanceBefore: string;

    const refuse = async (raw: string) => {
      const error = await rpcError(daemon.rpc.call('eth_sendRawTransaction', [raw]));
      refused.push(keccak256(raw));
      return error;
    };

    beforeAll(async () => {
      await sendAndWait(
        daemon.rpc,
        await signDynamicFeeTx(sender, { nonce: 0, to: bystander.address, value: 1n }),
      );
      nonceBefore = await daemon.rpc.call<string>('eth_getTransactionCount', [
        sender.address,
        'latest',
      ]);
      balanceBefore = await daemon.rpc.call<string>('eth_getBalance', [sender.address, 'latest']);
    });

    it('refuses a nonce that was already used: "nonce too low"', async () => {
      const raw = await signDynamicFeeTx(sender, { nonce: 0, to: bystander.address, value: 2n });
      const error = await refuse(raw);
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/^nonce too low/);
    });

    it.each([
      [
        'a typed transaction',
        { type: 2, maxFeePerGas: 20n * MIN_GAS_PRICE, maxPriorityFeePerGas: MIN_GAS_PRICE },
      ],
      ['a legacy EIP-155 transaction', { type: 0, gasPrice: 20n * MIN_GAS_PRICE }],
    ])('refuses %s signed for another chain id: "invalid chain id"', async (_kind, fees) => {
      const raw = await sender.signTransaction({
        ...fees,
        chainId: 1n,
        nonce: 1,
        to: bystander.address,
        value: 3n,
        gasLimit: 21_000n,
      });
      const error = await refuse(raw);
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/invalid chain id/);
      expect(error.message).toContain(`${DEV_CHAIN_ID}`);
    });

    it('refuses a typed transaction whose chain id has a leading zero byte', async () => {
      const raw = await signDynamicFeeTx(sender, { nonce: 1, to: bystander.address, value: 4n });
      const fields = decodeRlp(`0x${raw.slice(4)}`) as string[];
      const padded = concat(['0x02', encodeRlp([`0x00${fields[0].slice(2)}`, ...fields.slice(1)])]);
      const error = await refuse(padded);
      expect(error.message).toBe('invalid raw transaction: field chainId has leading zero bytes');
    });

    it('refuses a value above the balance: "insufficient funds for gas * price + value"', async () => {
      const raw = await signDynamicFeeTx(sender, {
        nonce: 1,
        to: bystander.address,
        value: parseEther('20000'),
      });
      const error = await refuse(raw);
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/^insufficient funds for gas \* price \+ value/);
    });

    it('refuses gas an empty account cannot pay for', async () => {
      const empty = Wallet.createRandom();
      const raw = await signDynamicFeeTx(empty, { nonce: 0, to: bystander.address, value: 0n });
      const error = await refuse(raw);
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/^insufficient funds for gas \* price \+ value/);
    });

    it('includes none of them: nonce and balance unchanged after the next block', async () => {
      const next = await sendAndWait(
        daemon.rpc,
        await signDynamicFeeTx(bystander, { nonce: 0, to: bystander.address, value: 0n }),
      );
      expect(BigInt(next.blockNumber)).toBeGreaterThan(0n);
      for (const tag of ['latest', 'pending']) {
        expect(await daemon.rpc.call('eth_getTransactionCount', [sender.address, tag])).toBe(
          nonceBefore,
        );
      }
      expect(await daemon.rpc.call('eth_getBalance', [sender.address, 'latest'])).toBe(
        balanceBefore,
      );
      expect(refused).toHaveLength(6);
      for (const hash of refused) {
        expect(await daemon.rpc.call('eth_getTransactionByHash', [hash])).toBeNull();
        expect(await daemon.rpc.call('eth_getTransactionReceipt', [hash])).toBeNull();
      }
      expect(await daemon.rpc.call('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
    });
  });
});
