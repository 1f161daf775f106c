/**
 * Block objects in both output modes. By default they follow the spec: difficulty, nonce,
 * sha3Uncles and totalDifficulty are null. With --json-rpc.ethereum-compat they carry the values
 * geth gives after the merge. Everything else (transactions, receipts, real gasUsed) is the same.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Wallet } from 'ethers';
import { rehashBlockHeader, type RawBlock } from '../helpers/block-header.js';
import {
  DEV_BALANCE,
  EMPTY_UNCLES_HASH,
  devWallet,
  sendAndWait,
  signDynamicFeeTx,
  type RawReceipt,
} from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const SPEC_BLOCK_FIELDS = [
  'difficulty',
  'extraData',
  'gasLimit',
  'gasUsed',
  'hash',
  'logsBloom',
  'miner',
  'nonce',
  'number',
  'parentHash',
  'sha3Uncles',
  'size',
  'stateRoot',
  'timestamp',
  'totalDifficulty',
  'transactions',
  'transactionsRoot',
  'uncles',
];
const SPEC_TRANSACTION_FIELDS = [
  'blockHash',
  'blockNumber',
  'from',
  'gas',
  'gasPrice',
  'hash',
  'input',
  'nonce',
  'to',
  'transactionIndex',
  'value',
  'v',
  'r',
  's',
];
const SPEC_RECEIPT_FIELDS = [
  'blockHash',
  'blockNumber',
  'contractAddress',
  'cumulativeGasUsed',
  'from',
  'gasUsed',
  'logs',
  'logsBloom',
  'status',
  'to',
  'transactionHash',
  'transactionIndex',
];
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const HASH = /^0x[0-9a-f]{64}$/;

interface ModeCase {
  mode: string;
  flags: string[];
  expected: Pick<RawBlock, 'difficulty' | 'nonce' | 'sha3Uncles' | 'totalDifficulty'>;
}

const MODES: ModeCase[] = [
  {
    mode: 'spec (default)',
    flags: [],
    expected: { difficulty: null, nonce: null, sha3Uncles: null, totalDifficulty: null },
  },
  {
    mode: 'ethereum-compat',
    flags: ['--json-rpc.ethereum-compat'],
    expected: {
      difficulty: '0x0',
      nonce: '0x0000000000000000',
      sha3Uncles: EMPTY_UNCLES_HASH,
      totalDifficulty: '0x0',
    },
  },
];

describe.each(MODES)('block objects in $mode mode', ({ flags, expected }) => {
  let daemon: TestDaemon;
  let receipt: RawReceipt;
  const sender = devWallet(2);
  const recipient = Wallet.createRandom().address;

  const getBlock = (method: string, selector: string, full: boolean) =>
    daemon.rpc.call<RawBlock>(method, [selector, full]);

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0', ...flags]);
    const raw = await signDynamicFeeTx(sender, { to: recipient, value: 12_345n, nonce: 0 });
    receipt = await sendAndWait(daemon.rpc, raw);
  });
  afterAll(() => daemon?.stop());

  it('reads the chain id, the head and genesis balances', async () => {
    expect(await daemon.rpc.call('eth_chainId')).toBe('0x2328');
    expect(await daemon.rpc.call('net_version')).toBe('9000');
    const head = await daemon.rpc.call<string>('eth_blockNumber');
    expect(BigInt(head)).toBeGreaterThanOrEqual(BigInt(receipt.blockNumber));
    expect(BigInt(await daemon.rpc.call<string>('eth_getBalance', [sender.address, '0x0']))).toBe(
      DEV_BALANCE,
    );
    expect(await daemon.rpc.call('eth_getBalance', [recipient, receipt.blockNumber])).toBe(
      '0x3039',
    );
  });

  it('gives the genesis block the spec fields with this mode values', async () => {
    const genesis = await getBlock('eth_getBlockByNumber', 'earliest', false);
    expect(Object.keys(genesis)).toEqual(expect.arrayContaining(SPEC_BLOCK_FIELDS));
    expect(genesis).toMatchObject({ ...expected, number: '0x0', transactions: [], uncles: [] });
    expect(genesis.gasUsed).toBe('0x0');
    expect(await getBlock('eth_getBlockByNumber', '0x0', true)).toEqual(genesis);
  });

  it('gives a block with a transaction this mode values, a real gasUsed and a hash of its header', async () => {
    const block = await getBlock('eth_getBlockByNumber', receipt.blockNumber, false);
    expect(block).toMatchObject({ ...expected, hash: receipt.blockHash, uncles: [] });
    expect(block.transactions).toEqual([receipt.transactionHash]);
    expect(block.gasUsed).toBe('0x5208');
    expect(block.baseFeePerGas).toMatch(QUANTITY);
    for (const field of ['gasLimit', 'number', 'size', 'timestamp'])
      expect(block[field]).toMatch(QUANTITY);
    for (const field of ['hash', 'parentHash', 'stateRoot', 'transactionsRoot'])
      expect(block[field]).toMatch(HASH);
    expect(rehashBlockHeader(block)).toBe(block.hash);
    expect(await getBlock('eth_getBlockByHash', receipt.blockHash, false)).toEqual(block);
  });

  it('gives full transaction objects with the spec fields', async () => {
    const block = await getBlock('eth_getBlockByHash', receipt.blockHash, true);
    expect(block).toMatchObject(expected);
    const [transaction] = block.transactions as Array<Record<string, unknown>>;
    expect(Object.keys(transaction)).toEqual(expect.arrayContaining(SPEC_TRANSACTION_FIELDS));
    expect(transaction).toMatchObject({
      blockHash: receipt.blockHash,
      blockNumber: receipt.blockNumber,
      from: sender.address.toLowerCase(),
      to: recipient.toLowerCase(),
      hash: receipt.transactionHash,
      nonce: '0x0',
      value: '0x3039',
      gas: '0x5208',
      input: '0x',
      transactionIndex: '0x0',
    });
    expect(await daemon.rpc.call('eth_getTransactionByHash', [receipt.transactionHash])).toEqual(
      transaction,
    );
  });

  it('gives receipts the spec fields with status 0x1, type and effectiveGasPrice', async () => {
    expect(Object.keys(receipt)).toEqual(expect.arrayContaining(SPEC_RECEIPT_FIELDS));
    expect(receipt).toMatchObject({
      status: '0x1',
      contractAddress: null,
      cumulativeGasUsed: '0x5208',
      gasUsed: '0x5208',
      logs: [],
      from: sender.address.toLowerCase(),
      to: recipient.toLowerCase(),
      transactionIndex: '0x0',
      type: '0x2',
    });
    expect(BigInt(receipt.effectiveGasPrice as string)).toBeGreaterThanOrEqual(1_000_000_000n);
  });

  it('answers null for blocks that do not exist', async () => {
    expect(await getBlock('eth_getBlockByNumber', '0xffffff', false)).toBeNull();
    expect(await getBlock('eth_getBlockByHash', `0x${'ab'.repeat(32)}`, false)).toBeNull();
  });
});
