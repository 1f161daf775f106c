/**
 * Conformance with the Ethereum execution-apis reference data (../shared/conformance): every
 * public method this node serves that the OpenRPC document describes gets its result validated
 * against the method's result schema (with our spec's nulls admitted), and the `.io` cases of the
 * methods this node implements are replayed, comparing error codes (messages may differ) and
 * results where they do not depend on the reference test chain.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Interface, Wallet, zeroPadValue } from 'ethers';
import { deployFixtureRaw, loadContract } from '../helpers/contracts.js';
import { loadIoCases, resultViolations, type IoCase } from '../helpers/conformance.js';
import {
  devWallet,
  sendAndWait,
  signDynamicFeeTx,
  waitForReceipt,
  type RawReceipt,
} from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** What the seeded chain holds, for building the calls. */
interface Seed {
  sender: string;
  recipient: string;
  fixture: string;
  deploy: RawReceipt;
  set: RawReceipt;
  transfer: RawReceipt;
  /** A signed transfer not yet sent, for eth_sendRawTransaction. */
  unsentRaw: string;
}

interface ConformanceCall {
  /** Shown in the test name, to tell calls of one method apart. */
  label: string;
  method: string;
  params: (seed: Seed) => unknown[];
}

const fixtureInterface = new Interface(loadContract('Fixture').abi);
const SLOT_0 = zeroPadValue('0x00', 32);
const UNKNOWN_HASH = `0x${'de'.repeat(32)}`;

const CALLS: ConformanceCall[] = [
  { label: '', method: 'eth_blockNumber', params: () => [] },
  { label: '', method: 'eth_chainId', params: () => [] },
  { label: '', method: 'eth_syncing', params: () => [] },
  { label: '', method: 'net_version', params: () => [] },
  { label: '', method: 'eth_coinbase', params: () => [] },
  { label: '', method: 'eth_accounts', params: () => [] },
  { label: '', method: 'eth_gasPrice', params: () => [] },
  { label: '', method: 'eth_maxPriorityFeePerGas', params: () => [] },
  { label: '', method: 'eth_blobBaseFee', params: () => [] },
  { label: '', method: 'eth_baseFee', params: () => [] },
  { label: '', method: 'eth_feeHistory', params: () => ['0x3', 'latest', [25, 75]] },
  { label: '', method: 'eth_getBalance', params: (s) => [s.sender, 'latest'] },
  { label: 'at a past block', method: 'eth_getBalance', params: (s) => [s.sender, '0x0'] },
  { label: '', method: 'eth_getTransactionCount', params: (s) => [s.sender, 'latest'] },
  { label: '', method: 'eth_getCode', params: (s) => [s.fixture, 'latest'] },
  { label: '', method: 'eth_getStorageAt', params: (s) => [s.fixture, SLOT_0, 'latest'] },
  {
    label: '',
    method: 'eth_call',
    params: (s) => [{ to: s.fixture, data: fixtureInterface.encodeFunctionData('get') }, 'latest'],
  },
  {
    label: '',
    method: 'eth_estimateGas',
    params: (s) => [{ from: s.sender, to: s.recipient, value: '0x1' }],
  },
  { label: '', method: 'eth_getProof', params: (s) => [s.fixture, [SLOT_0], 'latest'] },
  {
    label: '',
    method: 'eth_getStorageValues',
    params: (s) => [{ [s.fixture]: [SLOT_0, UNKNOWN_HASH], [s.sender]: [SLOT_0] }, 'latest'],
  },
  { label: '', method: 'txpool_contentFrom', params: (s) => [s.sender] },
  { label: '', method: 'eth_config', params: () => [] },
  { label: '', method: 'eth_capabilities', params: () => [] },
  {
    label: 'dynamic fee',
    method: 'eth_fillTransaction',
    params: (s) => [{ from: s.sender, to: s.recipient, value: '0x1' }],
  },
  {
    label: 'legacy',
    method: 'eth_fillTransaction',
    params: (s) => [{ from: s.sender, to: s.recipient, gasPrice: '0x3b9aca00' }],
  },
  {
    label: '',
    method: 'eth_simulateV1',
    params: (s) => [
      {
        blockStateCalls: [
          {
            calls: [
              { from: s.sender, to: s.recipient, value: '0x1' },
              { to: s.fixture, data: fixtureInterface.encodeFunctionData('set', [9]) },
              { to: s.fixture, data: fixtureInterface.encodeFunctionData('fail') },
            ],
          },
          {},
        ],
      },
      'latest',
    ],
  },
  { label: 'head, hashes', method: 'eth_getBlockByNumber', params: () => ['latest', false] },
  { label: 'genesis', method: 'eth_getBlockByNumber', params: () => ['0x0', true] },
  {
    label: 'full transactions',
    method: 'eth_getBlockByNumber',
    params: (s) => [s.deploy.blockNumber, true],
  },
  { label: 'unknown', method: 'eth_getBlockByNumber', params: () => ['0xffffff', false] },
  { label: '', method: 'eth_getBlockByHash', params: (s) => [s.set.blockHash, true] },
  {
    label: '',
    method: 'eth_getBlockTransactionCountByHash',
    params: (s) => [s.set.blockHash],
  },
  {
    label: '',
    method: 'eth_getBlockTransactionCountByNumber',
    params: (s) => [s.set.blockNumber],
  },
  {
    label: 'contract creation',
    method: 'eth_getTransactionByHash',
    params: (s) => [s.deploy.transactionHash],
  },
  {
    label: 'transfer',
    method: 'eth_getTransactionByHash',
    params: (s) => [s.transfer.transactionHash],
  },
  { label: 'unknown', method: 'eth_getTransactionByHash', params: () => [UNKNOWN_HASH] },
  {
    label: '',
    method: 'eth_getTransactionByBlockHashAndIndex',
    params: (s) => [s.set.blockHash, '0x0'],
  },
  {
    label: '',
    method: 'eth_getTransactionByBlockNumberAndIndex',
    params: (s) => [s.set.blockNumber, '0x0'],
  },
  {
    label: 'contract creation',
    method: 'eth_getTransactionReceipt',
    params: (s) => [s.deploy.transactionHash],
  },
  {
    label: 'with logs',
    method: 'eth_getTransactionReceipt',
    params: (s) => [s.set.transactionHash],
  },
  { label: 'unknown', method: 'eth_getTransactionReceipt', params: () => [UNKNOWN_HASH] },
  {
    label: '',
    method: 'eth_getLogs',
    params: (s) => [{ fromBlock: '0x0', toBlock: 'latest', address: s.fixture }],
  },
  { label: '', method: 'eth_sendRawTransaction', params: (s) => [s.unsentRaw] },
  { label: '', method: 'txpool_status', params: () => [] },
  { label: '', method: 'txpool_content', params: () => [] },
];

/**
 * `.io` cases whose expectation depends on the contents of the reference test chain and which
 * are therefore not replayed here:
 * - eth_call/call-revert-abi-error.io, eth_call/call-revert-abi-panic.io,
 *   eth_estimateGas/estimate-call-abi-error.io, eth_estimateGas/estimate-failed-call.io: call
 *   contracts deployed on that chain (0x0ee3ab…, 0x17e7ee…) that do not exist here.
 */
const CHAIN_DEPENDENT_CASES = new Set([
  'eth_call/call-revert-abi-error.io',
  'eth_call/call-revert-abi-panic.io',
  'eth_estimateGas/estimate-call-abi-error.io',
  'eth_estimateGas/estimate-failed-call.io',
]);
/** Cases whose result is the reference chain's own value: only success and the schema count. */
const CHAIN_VALUED_RESULTS = new Set(['net_version/get-network-id.io']);

const IMPLEMENTED_METHODS = [
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getStorageValues',
  'eth_getTransactionCount',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_call',
  'eth_estimateGas',
  'eth_syncing',
  'net_version',
  'eth_getLogs',
  'eth_simulateV1',
];
const IO_CASES = loadIoCases(IMPLEMENTED_METHODS).filter(
  (ioCase) => !CHAIN_DEPENDENT_CASES.has(ioCase.file),
);

/** Polling-filter calls, in order: each step may use the filter ids the earlier ones returned. */
const FILTER_STEPS: Array<{
  method: string;
  params: (seed: Seed, ids: Map<string, string>) => unknown[];
}> = [
  {
    method: 'eth_newFilter',
    params: (s) => [{ fromBlock: '0x0', toBlock: 'latest', address: s.fixture }],
  },
  { method: 'eth_newBlockFilter', params: () => [] },
  { method: 'eth_newPendingTransactionFilter', params: () => [] },
  { method: 'eth_getFilterLogs', params: (_s, ids) => [ids.get('eth_newFilter')] },
  { method: 'eth_getFilterChanges', params: (_s, ids) => [ids.get('eth_newFilter')] },
  { method: 'eth_getFilterChanges', params: (_s, ids) => [ids.get('eth_newBlockFilter')] },
  { method: 'eth_uninstallFilter', params: (_s, ids) => [ids.get('eth_newFilter')] },
];

describe('conformance with the execution-apis reference data', () => {
  let daemon: TestDaemon;
  let seed: Seed;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
    const wallet = devWallet(4);
    const recipient = Wallet.createRandom().address;
    const deploy = await deployFixtureRaw(daemon.rpc, 'Fixture', wallet, 0);
    const fixture = deploy.contractAddress as string;
    const set = await sendAndWait(
      daemon.rpc,
      await signDynamicFeeTx(wallet, {
        nonce: 1,
        to: fixture,
        data: fixtureInterface.encodeFunctionData('set', [7n]),
        gasLimit: 100_000n,
      }),
    );
    const transfer = await sendAndWait(
      daemon.rpc,
      await signDynamicFeeTx(wallet, { nonce: 2, to: recipient, value: 1_000n }),
    );
    const unsentRaw = await signDynamicFeeTx(wallet, { nonce: 3, to: recipient, value: 1n });
    seed = { sender: wallet.address, recipient, fixture, deploy, set, transfer, unsentRaw };
  });
  afterAll(() => daemon?.stop());

  describe('results validate against the OpenRPC result schemas', () => {
    it.each(CALLS.map((call) => [`${call.method} ${call.label}`.trim(), call] as const))(
      '%s',
      async (_name, call) => {
        const result = await daemon.rpc.call(call.method, call.params(seed));
        expect(resultViolations(call.method, result)).toEqual([]);
        if (call.method === 'eth_sendRawTransaction')
          await waitForReceipt(daemon.rpc, result as string);
      },
    );
  });

  it('polling filter results validate against the OpenRPC result schemas', async () => {
    const ids = new Map<string, string>();
    const violations: string[] = [];
    for (const step of FILTER_STEPS) {
      const result = await daemon.rpc.call(step.method, step.params(seed, ids));
      if (step.method.startsWith('eth_new')) ids.set(step.method, result as string);
      violations.push(...resultViolations(step.method, result));
    }
    expect(violations).toEqual([]);
  });

  describe('the io cases replay', () => {
    it('has cases to replay for every implemented method', () => {
      expect(new Set(IO_CASES.map((ioCase) => ioCase.method)).size).toBeGreaterThanOrEqual(10);
    });

    it.each(IO_CASES.map((ioCase) => [ioCase.file, ioCase] as const))(
      '%s',
      async (_file, ioCase: IoCase) => {
        if (ioCase.method === 'eth_getLogs') {
          // Its range cases assume the head is below their blocks (0x2f to 0x38).
          expect(BigInt(await daemon.rpc.call<string>('eth_blockNumber'))).toBeLessThan(0x2fn);
        }
        const response = await daemon.rpc.post(JSON.stringify(ioCase.request));
        const answer = response.body as IoCase['response'];
        expect({ jsonrpc: answer.jsonrpc, id: answer.id }).toEqual({
          jsonrpc: '2.0',
          id: ioCase.request.id,
        });
        if (ioCase.response.error !== undefined) {
          expect(answer.error?.code).toBe(ioCase.response.error.code);
        } else if (CHAIN_VALUED_RESULTS.has(ioCase.file)) {
          expect(answer.error).toBeUndefined();
          expect(resultViolations(ioCase.method, answer.result)).toEqual([]);
        } else {
          expect(answer).toEqual(ioCase.response);
        }
      },
    );
  });
});
