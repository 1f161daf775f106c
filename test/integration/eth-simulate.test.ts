/**
 * eth_simulateV1 as geth answers it: blocks of calls on top of a block, numbered and timed by
 * geth's rules, the state carried from call to call and block to block, nothing persisted;
 * invalid calls and out-of-order blocks refused with the execution-apis codes. A simulation
 * runs on a call thread as calls do, or on the main thread without them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Wallet } from 'ethers';
import { createPublicClient, http, parseEther } from 'viem';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DEV = DEV_ADDRESSES[0].toLowerCase();
const word = (value: bigint | string) => `0x${BigInt(value).toString(16).padStart(64, '0')}`;
/** Creation code that answers the balance of `target` as one word. */
const balanceProbe = (target: string) => `0x73${target.slice(2)}3160005260206000f3`;
/** Creation code that answers the value `opcode` pushes, as one word. */
const probe = (opcode: string) => `0x${opcode}60005260206000f3`;
/** Runtime that logs its call data under topic 0x2a, then answers BLOCKHASH(NUMBER - 1). */
const LOGGER = '0x366000600037602a366000a160014303406000526020' + '6000f3';
/** Runtime that reverts with Error("no"). */
const REVERTER =
  '0x6308c379a060e01b6000526020600452600260245261' + '6e6f60f01b604452606460' + '00fd';
const CONTRACT = '0x00000000000000000000000000000000000000c1';
const POOR = '0xc000000000000000000000000000000000000000';
/** Fees above the dev chain's base fee. */
const FEES = { maxFeePerGas: '0xe8d4a51000', maxPriorityFeePerGas: '0x0' };

interface SimulatedCallJson {
  returnData: string;
  logs: Array<Record<string, string>>;
  gasUsed: string;
  status: string;
  error?: { code: number; message: string; data?: string };
}
interface SimulatedBlockJson {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  miner: string;
  baseFeePerGas: string;
  gasUsed: string;
  stateRoot: string;
  transactions: string[];
  calls: SimulatedCallJson[];
}

describe.each([
  ['on the main thread', '0'],
  ['on a call thread', '1'],
])('eth_simulateV1 %s', (_where, threads) => {
  let daemon: TestDaemon;
  let head: { number: string; hash: string; timestamp: string; stateRoot: string };
  const simulate = (payload: unknown, block: unknown = head.number) =>
    daemon.rpc.call<SimulatedBlockJson[]>('eth_simulateV1', [payload, block]);

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0', '--json-rpc.evm-threads', threads]);
    head = await daemon.rpc.call('eth_getBlockByNumber', ['latest', false]);
  });
  afterAll(() => daemon?.stop());

  it('carries state from call to call and block to block, and persists nothing', async () => {
    const target = Wallet.createRandom().address.toLowerCase();
    const blocks = await simulate({
      blockStateCalls: [
        {
          calls: [{ from: DEV, to: target, value: '0x3e8' }, { data: balanceProbe(target) }],
        },
        { calls: [{ from: DEV, to: target, value: '0x1' }, { data: balanceProbe(target) }] },
      ],
    });
    expect(blocks).toHaveLength(2);
    const [first, second] = blocks;
    expect(BigInt(first.number)).toBe(BigInt(head.number) + 1n);
    expect(BigInt(second.number)).toBe(BigInt(head.number) + 2n);
    expect(BigInt(first.timestamp)).toBe(BigInt(head.timestamp) + 12n);
    expect(BigInt(second.timestamp)).toBe(BigInt(head.timestamp) + 24n);
    expect(first.parentHash).toBe(head.hash);
    expect(second.parentHash).toBe(first.hash);
    expect(first.transactions).toHaveLength(2);
    expect(first.calls[0]).toEqual({
      returnData: '0x',
      logs: [],
      gasUsed: '0x5208',
      status: '0x1',
    });
    expect(first.calls[1].returnData).toBe(word(1000n));
    expect(second.calls[1].returnData).toBe(word(1001n));
    expect(BigInt(first.gasUsed)).toBe(
      BigInt(first.calls[0].gasUsed) + BigInt(first.calls[1].gasUsed),
    );
    // Without validation a block's base fee is zero, as geth's.
    expect(first.baseFeePerGas).toBe('0x0');
    expect(await daemon.rpc.call('eth_getBalance', [target, 'latest'])).toBe('0x0');
    expect(await daemon.rpc.call('eth_blockNumber', [])).toBe(head.number);
  });

  it('places logs in their block, and BLOCKHASH sees the simulated blocks', async () => {
    const [first, second] = await simulate({
      blockStateCalls: [
        { stateOverrides: { [CONTRACT]: { code: LOGGER } }, calls: [] },
        { calls: [{ to: CONTRACT, input: '0xabcd' }] },
      ],
    });
    const [call] = second.calls;
    expect(call.status).toBe('0x1');
    // BLOCKHASH(NUMBER - 1) in the second block is the first's hash.
    expect(call.returnData).toBe(first.hash);
    expect(call.logs).toEqual([
      {
        address: CONTRACT,
        topics: [word(0x2an)],
        data: '0xabcd',
        blockNumber: second.number,
        blockHash: second.hash,
        blockTimestamp: second.timestamp,
        transactionHash: second.transactions[0],
        transactionIndex: '0x0',
        logIndex: '0x0',
        removed: false,
      },
    ]);
  });

  it('answers failed calls in the block: reverts with code 3, other failures with -32015', async () => {
    const [block] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [CONTRACT]: { code: REVERTER } },
          // An invalid opcode takes all the gas a call has: the block's, unless it names less.
          calls: [{ to: CONTRACT }, { data: '0xfe', gas: '0x100000' }, { data: probe('43') }],
        },
      ],
    });
    const [reverted, invalid, fine] = block.calls;
    expect(reverted.status).toBe('0x0');
    expect(reverted.error).toEqual({
      code: 3,
      message: 'execution reverted: no',
      data: reverted.returnData,
    });
    expect(invalid.status).toBe('0x0');
    expect(invalid.error).toEqual({ code: -32015, message: 'invalid opcode: INVALID' });
    expect(fine.returnData).toBe(word(BigInt(block.number)));
  });

  it('runs blocks with their overrides, filling a gap of numbers with empty blocks', async () => {
    const base = BigInt(head.number);
    const coinbase = '0x00000000000000000000000000000000000000fe';
    const blocks = await simulate({
      blockStateCalls: [
        {
          blockOverrides: {
            number: `0x${(base + 3n).toString(16)}`,
            time: `0x${(BigInt(head.timestamp) + 100n).toString(16)}`,
            feeRecipient: coinbase,
            baseFeePerGas: '0x7',
          },
          calls: [{ data: probe('43') }, { data: probe('42') }, { data: probe('41') }],
        },
        { calls: [{ data: probe('42') }] },
      ],
    });
    expect(blocks.map((b) => BigInt(b.number))).toEqual([
      base + 1n,
      base + 2n,
      base + 3n,
      base + 4n,
    ]);
    expect(blocks.map((b) => BigInt(b.timestamp) - BigInt(head.timestamp))).toEqual([
      12n,
      24n,
      100n,
      112n,
    ]);
    expect(blocks[0].calls).toEqual([]);
    // An empty block changes no state: its root is its parent's.
    expect(blocks[0].stateRoot).toBe(head.stateRoot);
    expect(blocks[0].transactions).toEqual([]);
    const overridden = blocks[2];
    expect(overridden.miner).toBe(coinbase);
    expect(overridden.baseFeePerGas).toBe('0x7');
    expect(overridden.calls.map((c) => c.returnData)).toEqual([
      word(base + 3n),
      word(BigInt(head.timestamp) + 100n),
      word(coinbase),
    ]);
    // The next block keeps the coinbase it follows.
    expect(blocks[3].miner).toBe(coinbase);
  });

  it('refuses blocks out of order and too many blocks, with their codes', async () => {
    const base = BigInt(head.number);
    const at = (n: bigint) => `0x${n.toString(16)}`;
    const refused = (...overrides: object[]) =>
      rpcError(
        simulate({ blockStateCalls: overrides.map((blockOverrides) => ({ blockOverrides })) }),
      );
    const numbers = await refused({ number: at(base + 10n) }, { number: at(base + 5n) });
    expect(numbers.code).toBe(-38020);
    expect(numbers.message).toBe(`block numbers must be in order: ${base + 5n} <= ${base + 10n}`);
    const t = BigInt(head.timestamp);
    const times = await refused({ time: at(t + 50n) }, { time: at(t + 50n) });
    expect(times.code).toBe(-38021);
    expect(times.message).toBe(`block timestamps must be in order: ${t + 50n} <= ${t + 50n}`);
    const many = await rpcError(simulate({ blockStateCalls: Array(257).fill({}) }));
    expect(many.code).toBe(-38026);
    expect(many.message).toBe('too many blocks');
    const far = await rpcError(
      simulate({ blockStateCalls: [{ blockOverrides: { number: at(base + 257n) } }] }),
    );
    expect(far.code).toBe(-38026);
    expect((await simulate({ blockStateCalls: Array(256).fill({}) })).length).toBe(256);
    // An invalid opcode takes all the gas it is given: the block's, up to what is left of the
    // gas cap the simulation's calls share.
    const spent = await rpcError(
      simulate({ blockStateCalls: Array(4).fill({ calls: [{ data: '0xfe' }] }) }),
    );
    expect(spent.code).toBe(-38026);
    expect(spent.message).toBe(
      'gas limit of the simulation reached: its calls may use 25000000 gas in all (--json-rpc.gas-cap)',
    );
  });

  it('refuses invalid calls with geth codes and words', async () => {
    const rich = '0x00000000000000000000000000000000000000aa';
    const refused = async (calls: unknown[], validation = false) =>
      rpcError(
        simulate({
          blockStateCalls: [
            {
              stateOverrides: { [rich]: { balance: '0xffffffffffffffffffff', nonce: '0x5' } },
              calls,
            },
          ],
          validation,
        }),
      );
    const funds = await refused([{ from: POOR, to: DEV, value: '0x3e8', gas: '0x5208' }]);
    expect(funds.code).toBe(-38014);
    expect(funds.message).toBe(
      'err: insufficient funds for gas * price + value: address 0xC000000000000000000000000000000000000000 have 0 want 1000 (supplied gas 21000)',
    );
    const intrinsic = await refused([{ from: DEV, to: POOR, gas: '0x0' }]);
    expect(intrinsic.code).toBe(-38013);
    expect(intrinsic.message).toBe(
      'err: intrinsic gas too low: have 0, want 21000 (supplied gas 0)',
    );
    const baseFee = await refused([{ from: DEV, to: POOR }], true);
    expect(baseFee.code).toBe(-38012);
    expect(baseFee.message).toMatch(
      /^err: max fee per gas less than block base fee: address 0x[0-9a-fA-F]{40}, maxFeePerGas: 0, baseFee: [1-9]\d* \(supplied gas \d+\)$/,
    );
    const low = await refused([{ from: rich, to: POOR, nonce: '0x4', ...FEES }], true);
    expect(low.code).toBe(-38010);
    expect(low.message).toMatch(
      /^err: nonce too low: address 0x0+[aA]{2}, tx: 4 state: 5 \(supplied/,
    );
    const high = await refused([{ from: rich, to: POOR, nonce: '0x7', ...FEES }], true);
    expect(high.code).toBe(-38011);
    expect(high.message).toMatch(
      /^err: nonce too high: address 0x0+[aA]{2}, tx: 7 state: 5 \(supplied/,
    );
    // Without validation the nonce is not checked.
    const unchecked = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [rich]: { balance: '0xffffffffffffffffffff', nonce: '0x5' } },
          calls: [{ from: rich, to: POOR, nonce: '0x7' }],
        },
      ],
    });
    expect(unchecked[0].calls[0].status).toBe('0x1');
    // With validation, nonces count up from the state's, call after call.
    const valid = await simulate({
      blockStateCalls: [
        {
          calls: [
            { from: DEV, to: POOR, ...FEES },
            { from: DEV, to: POOR, ...FEES },
          ],
        },
      ],
      validation: true,
    });
    expect(valid[0].calls.map((c) => c.status)).toEqual(['0x1', '0x1']);
    expect(BigInt(valid[0].baseFeePerGas)).toBeGreaterThan(0n);
    const full = await refused([{ from: DEV, to: POOR, gas: '0xffffffffffff' }]);
    expect(full.code).toBe(-38015);
    expect(full.message).toMatch(/^block gas limit reached: 0 >= \d+$/);
  });

  it('runs calls from an account with code, as geth', async () => {
    const target = '0x00000000000000000000000000000000000000c2';
    // CALLER EXTCODESIZE: the size of the sender's code, as the call sees it.
    const callerCodeSize = '0x333b60005260206000f3';
    const [block] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: {
            [CONTRACT]: { code: REVERTER, balance: '0x100' },
            [target]: { code: callerCodeSize },
          },
          calls: [
            { from: CONTRACT, to: target },
            { from: CONTRACT, to: POOR, value: '0x10' },
            { to: target },
          ],
        },
      ],
    });
    const codeSize = BigInt((REVERTER.length - 2) / 2);
    expect(block.calls.map((c) => c.status)).toEqual(['0x1', '0x1', '0x1']);
    expect(block.calls[0].returnData).toBe(word(codeSize));
    // The sender's code is still there after its calls; the zero address has none.
    expect(block.calls[2].returnData).toBe(word(0n));
    const [after] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [CONTRACT]: { code: REVERTER, balance: '0x100' } },
          calls: [
            { from: CONTRACT, to: POOR, value: '0x10' },
            { data: `0x73${CONTRACT.slice(2)}3b60005260206000f3` },
            { data: balanceProbe(CONTRACT) },
          ],
        },
      ],
    });
    expect(after.calls[1].returnData).toBe(word(codeSize));
    expect(after.calls[2].returnData).toBe(word(0x100n - 0x10n));
    // With validation too: geth's simulation does not hold senders to EIP-3607.
    const [validated] = await simulate({
      blockStateCalls: [
        {
          stateOverrides: { [CONTRACT]: { code: REVERTER, balance: '0xffffffffffffffffffff' } },
          calls: [{ from: CONTRACT, to: target, ...FEES }],
        },
      ],
      validation: true,
    });
    expect(validated.calls[0].status).toBe('0x1');
  });

  it('logs transfers of ether among the logs, in order, with traceTransfers', async () => {
    const forwarder = '0x00000000000000000000000000000000000000f1';
    const reverter = '0x00000000000000000000000000000000000000f2';
    const logger = '0x00000000000000000000000000000000000000f3';
    const log1 = (topic: number) => `60${topic.toString(16).padStart(2, '0')}60006000a1`;
    const callWithValue = (value: number, to: string) =>
      `600060006000600060${value.toString(16).padStart(2, '0')}73${to.slice(2)}5af150`;
    const delegateCall = (to: string) => `6000600060006000${`73${to.slice(2)}`}5af450`;
    // LOG 1, send 5 to POOR, send 1 to a reverter (undone), DELEGATECALL a LOG 3, LOG 2.
    const forwarderCode = `0x${log1(1)}${callWithValue(5, POOR)}${callWithValue(1, reverter)}${delegateCall(logger)}${log1(2)}00`;
    const payload = (traceTransfers: boolean) => ({
      blockStateCalls: [
        {
          stateOverrides: {
            [forwarder]: { code: forwarderCode },
            [reverter]: { code: REVERTER },
            [logger]: { code: `0x${log1(3)}00` },
          },
          calls: [
            { from: DEV, to: forwarder, value: '0x10' },
            { from: DEV, to: POOR, value: '0x7' },
          ],
        },
      ],
      traceTransfers,
    });
    const pad = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;
    const transfer = (from: string, to: string, value: bigint) => ({
      address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      topics: [
        '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        pad(from),
        pad(to),
      ],
      data: word(value),
    });
    const logged = (topic: number) => ({
      address: forwarder,
      topics: [word(BigInt(topic))],
      data: '0x',
    });
    const summary = (log: Record<string, unknown>) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
    });
    const [traced] = await simulate(payload(true));
    expect(traced.calls.map((call) => call.status)).toEqual(['0x1', '0x1']);
    expect(traced.calls[0].logs.map(summary)).toEqual([
      transfer(DEV, forwarder, 0x10n),
      logged(1),
      transfer(forwarder, POOR, 5n),
      logged(3),
      logged(2),
    ]);
    expect(traced.calls[1].logs.map(summary)).toEqual([transfer(DEV, POOR, 7n)]);
    expect(traced.calls[1].logs[0].logIndex).toBe('0x5');
    const [plain] = await simulate(payload(false));
    expect(plain.calls[0].logs.map(summary)).toEqual([logged(1), logged(3), logged(2)]);
    expect(plain.calls[1].logs).toEqual([]);
    // The block itself is the same: its receipts hold the real logs only.
    expect(traced.hash).toBe(plain.hash);
  });

  it('answers the calls as unsigned transactions with returnFullTransactions', async () => {
    const payload = (returnFullTransactions: boolean) => ({
      blockStateCalls: [{ calls: [{ from: DEV, to: POOR, value: '0x1' }, { data: probe('43') }] }],
      returnFullTransactions,
    });
    const [hashes] = await simulate(payload(false));
    const [full] = (await simulate(payload(true))) as unknown as Array<
      Omit<SimulatedBlockJson, 'transactions'> & { transactions: Array<Record<string, unknown>> }
    >;
    expect(full.hash).toBe(hashes.hash);
    expect(full.transactions.map((tx) => tx.hash)).toEqual(hashes.transactions);
    expect(full.transactions[0]).toMatchObject({
      from: DEV,
      to: POOR,
      value: '0x1',
      blockHash: full.hash,
      blockNumber: full.number,
      transactionIndex: '0x0',
      v: '0x0',
      r: '0x0',
      s: '0x0',
    });
    expect(full.transactions[1]).toMatchObject({
      from: '0x0000000000000000000000000000000000000000',
      to: null,
      transactionIndex: '0x1',
    });
  });

  it('keeps a moved precompile where it was moved for the blocks after', async () => {
    const sha256 = '0x0000000000000000000000000000000000000002';
    const moved = '0x00000000000000000000000000000000000000c3';
    const emptySha256 = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const blocks = await simulate({
      blockStateCalls: [
        { stateOverrides: { [sha256]: { movePrecompileToAddress: moved } }, calls: [] },
        { calls: [{ to: moved }, { to: sha256 }] },
      ],
    });
    expect(blocks[1].calls.map((call) => call.returnData)).toEqual([emptySha256, '0x']);
    const again = await rpcError(
      simulate({
        blockStateCalls: [
          { stateOverrides: { [sha256]: { movePrecompileToAddress: moved } } },
          { stateOverrides: { [sha256]: { movePrecompileToAddress: CONTRACT } } },
        ],
      }),
    );
    expect(again.code).toBe(-32000);
    expect(again.message).toMatch(/is not a precompile$/);
  });

  it('refuses block overrides a simulation cannot apply', async () => {
    const withdrawals = await rpcError(
      simulate({ blockStateCalls: [{ blockOverrides: { withdrawals: [] } }] }),
    );
    expect(withdrawals.code).toBe(-32602);
  });

  it("serves viem's simulateBlocks and simulateCalls", async () => {
    const client = createPublicClient({ transport: http(daemon.endpoints.http) });
    const target = Wallet.createRandom().address as `0x${string}`;
    const [block] = await client.simulateBlocks({
      blocks: [{ calls: [{ account: DEV as `0x${string}`, to: target, value: parseEther('1') }] }],
    });
    expect(block.calls[0].status).toBe('success');
    expect(block.calls[0].gasUsed).toBe(21000n);
    const { results, assetChanges } = await client.simulateCalls({
      account: DEV as `0x${string}`,
      calls: [{ to: target, value: 1n }],
      traceAssetChanges: true,
      traceTransfers: true,
    });
    expect(results[0].status).toBe('success');
    expect(results[0].logs?.map((log) => log.address)).toEqual([
      '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
    ]);
    const ether = assetChanges.find((change) => change.token.symbol === 'ETH');
    expect(ether?.value.diff).toBe(-1n);
  });
});
