/**
 * Tracing against a real daemon: geth's tracers over transactions that exercise every kind of
 * call and creation, value transfers, self-destruction, nested reverts (caught and not), out of
 * gas and logs; block traces, `debug_traceCall`, the raw getters, auth, the time limit, Foundry's
 * `cast run`, and a long trace that must not hold up anything else.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Interface,
  JsonRpcProvider,
  concat,
  decodeRlp,
  encodeRlp,
  getAddress,
  getCreate2Address,
  getCreateAddress,
  keccak256,
  toBeHex,
  toQuantity,
  zeroPadValue,
  type Contract,
  type Wallet,
} from 'ethers';
import type { RpcResponseError } from '../../src/client/errors.js';
import { RestClient } from '../../src/client/rest-client.js';
import type {
  CallTraceFrame,
  PrestateAccount,
  StructLogResult,
} from '../../src/shared/trace-results.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { deployFixture, loadContract } from '../helpers/contracts.js';
import { devWallet, type RawReceipt } from '../helpers/dev-chain.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const CAST = fileURLToPath(new URL('../../node_modules/.bin/cast', import.meta.url));

type Frame = CallTraceFrame;
type Prestate = Record<string, PrestateAccount>;

const callee = new Interface(loadContract('Callee').abi);
const PROBE_GAS = 1_500_000n;

/** Every log of a call tree, in the order the EVM emitted them. */
function treeLogs(frame: Frame): NonNullable<Frame['logs']> {
  const own = frame.logs ?? [];
  const out: NonNullable<Frame['logs']> = [];
  let next = 0;
  (frame.calls ?? []).forEach((call, index) => {
    while (next < own.length && Number(own[next].position) <= index) out.push(own[next++]);
    out.push(...treeLogs(call));
  });
  return [...out, ...own.slice(next)];
}

describe('debug tracing', () => {
  let daemon: TestDaemon;
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  let prober: Contract;
  let proberAddress: string;
  let calleeAddress: string;
  let probe: RawReceipt;
  let probeInput: string;

  const trace = <T>(method: string, params: unknown[]) => daemon.authedRpc.call<T>(method, params);
  const receiptOf = (hash: string) =>
    provider.send('eth_getTransactionReceipt', [hash]) as Promise<RawReceipt>;
  /** Sends `method` of the prober and waits for it to be mined, reverted or not. */
  const send = async (method: string, args: unknown[], gasLimit: bigint, value = 0n) => {
    const sent = await prober.getFunction(method).send(...args, { gasLimit, value });
    await provider.waitForTransaction(sent.hash);
    return receiptOf(sent.hash);
  };

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--json-rpc.ethereum-compat',
      '--block-time',
      '0',
      '--json-rpc.trace-result-max-size',
      '10MB',
    ]);
    provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      pollingInterval: 50,
      cacheTimeout: -1,
    });
    wallet = devWallet(0).connect(provider);
    const calleeContract = await deployFixture('Callee', wallet);
    prober = await deployFixture('Prober', wallet);
    calleeAddress = (await calleeContract.getAddress()).toLowerCase();
    proberAddress = (await prober.getAddress()).toLowerCase();
    probe = await send('probe', [calleeAddress], PROBE_GAS, 10n);
    probeInput = prober.interface.encodeFunctionData('probe', [calleeAddress]);
  }, 120_000);
  afterAll(async () => {
    provider?.destroy();
    await daemon?.stop();
  });

  describe('callTracer', () => {
    let top: Frame;
    beforeAll(async () => {
      top = await trace<Frame>('debug_traceTransaction', [
        probe.transactionHash,
        { tracer: 'callTracer', tracerConfig: { withLog: true } },
      ]);
    });

    it('reports the transaction as the top frame, with the receipt gas', () => {
      expect(top).toMatchObject({
        type: 'CALL',
        from: wallet.address.toLowerCase(),
        to: proberAddress,
        value: '0xa',
        gas: toBeHex(PROBE_GAS),
        gasUsed: probe.gasUsed,
        input: probeInput,
        output: zeroPadValue('0x04', 32),
      });
      expect(top.error).toBeUndefined();
    });

    it('names every kind of call and creation with its sender, target, value and input', () => {
      const calls = top.calls!;
      expect(calls.map((call) => call.type)).toEqual([
        'CALL',
        'DELEGATECALL',
        'STATICCALL',
        'CALLCODE',
        'CREATE',
        'CREATE2',
        'CALL',
        'STATICCALL',
      ]);
      for (const call of calls) expect(call.from).toBe(proberAddress);
      const [ping, delegated, peeked, coded, created, salted, destroy, boom] = calls;
      expect(ping).toMatchObject({
        to: calleeAddress,
        value: '0x3',
        input: callee.encodeFunctionData('ping'),
        output: zeroPadValue('0x04', 32),
      });
      expect(delegated).toMatchObject({
        to: calleeAddress,
        input: callee.encodeFunctionData('setStored', [7]),
        value: '0xa',
      });
      expect(peeked.value).toBeUndefined();
      expect(peeked.output).toBe(zeroPadValue('0x00', 32));
      expect(coded).toMatchObject({
        to: calleeAddress,
        input: callee.encodeFunctionData('setStored', [9]),
        value: '0x0',
      });
      const childCode = loadContract('Child');
      expect(created).toMatchObject({
        to: getCreateAddress({ from: proberAddress, nonce: 1 }).toLowerCase(),
        value: '0x5',
        input: childCode.bytecode,
        output: childCode.deployedBytecode,
      });
      expect(salted.to).toBe(
        getCreate2Address(
          proberAddress,
          zeroPadValue('0x01', 32),
          keccak256(childCode.bytecode),
        ).toLowerCase(),
      );
      expect(destroy.to).toBe(created.to);
      expect(destroy.calls).toEqual([
        {
          type: 'SELFDESTRUCT',
          from: created.to,
          to: wallet.address.toLowerCase(),
          gas: '0x0',
          gasUsed: '0x0',
          input: '0x',
          value: '0x5',
        },
      ]);
      expect(boom).toMatchObject({
        to: calleeAddress,
        error: 'execution reverted',
        revertReason: 'Callee: boom 2',
        input: callee.encodeFunctionData('boom', [2]),
      });
      for (const call of calls) expect(BigInt(call.gasUsed)).toBeLessThanOrEqual(BigInt(call.gas));
    });

    it('places the logs where they were emitted, the same logs as the receipt', async () => {
      expect(top.logs!.map((log) => Number(log.position))).toEqual([1, 8, 8]);
      const receipt = await receiptOf(probe.transactionHash);
      const logs = receipt.logs as Array<{ address: string; topics: string[]; data: string }>;
      expect(treeLogs(top).map(({ address, topics, data }) => ({ address, topics, data }))).toEqual(
        logs.map(({ address, topics, data }) => ({ address, topics, data })),
      );
    });

    it('gives only the top call with onlyTopCall, and no logs without withLog', async () => {
      const only = await trace<Frame>('debug_traceTransaction', [
        probe.transactionHash,
        { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
      ]);
      const { calls: _calls, logs: _logs, ...rest } = top;
      expect(only).toEqual(rest);
    });

    it('reports an uncaught revert in a nested call, with its reason and no logs', async () => {
      const failed = await send('failDeep', [calleeAddress], 300_000n);
      expect(failed.status).toBe('0x0');
      const frame = await trace<Frame>('debug_traceTransaction', [
        failed.transactionHash,
        { tracer: 'callTracer', tracerConfig: { withLog: true } },
      ]);
      expect(frame).toMatchObject({
        error: 'execution reverted',
        revertReason: 'Callee: boom 5',
        gasUsed: failed.gasUsed,
      });
      expect(frame.logs).toBeUndefined();
      expect(frame.calls).toHaveLength(1);
      expect(frame.calls![0]).toMatchObject({
        type: 'STATICCALL',
        error: 'execution reverted',
        revertReason: 'Callee: boom 5',
      });
    });

    it('reports running out of gas, all gas used', async () => {
      const burnt = await send('burn', [], 100_000n);
      expect(burnt.status).toBe('0x0');
      const frame = await trace<Frame>('debug_traceTransaction', [
        burnt.transactionHash,
        { tracer: 'callTracer' },
      ]);
      expect(frame).toMatchObject({ error: 'out of gas', gas: '0x186a0', gasUsed: '0x186a0' });
      expect(frame.output).toBeUndefined();
      const structured = await trace<StructLogResult>('debug_traceTransaction', [
        burnt.transactionHash,
      ]);
      expect(structured.failed).toBe(true);
      expect(structured.gas).toBe(100_000);
      expect(structured.returnValue).toBe('0x');
      expect(structured.structLogs.at(-1)!.error).toBe('out of gas');
    });
  });

  describe('struct logger', () => {
    let result: StructLogResult;
    beforeAll(async () => {
      result = await trace<StructLogResult>('debug_traceTransaction', [probe.transactionHash, {}]);
    });

    it('agrees with the receipt and the call tracer on gas, failure and output', () => {
      expect(result.gas).toBe(Number(probe.gasUsed));
      expect(result.failed).toBe(false);
      expect(result.returnValue).toBe(zeroPadValue('0x04', 32));
      expect(result.structLogs[0]).toMatchObject({ pc: 0, depth: 1, stack: [] });
      expect(result.structLogs.at(-1)!.op).toBe('RETURN');
    });

    it('charges each step what the next one has less', () => {
      const logs = result.structLogs;
      let checked = 0;
      for (let i = 0; i + 1 < logs.length; i++) {
        if (logs[i].depth !== logs[i + 1].depth) continue;
        expect({ step: i, spent: logs[i].gas - logs[i + 1].gas }).toEqual({
          step: i,
          spent: logs[i].gasCost,
        });
        checked++;
      }
      expect(checked).toBeGreaterThan(1000);
      expect(new Set(logs.map((log) => log.depth))).toEqual(new Set([1, 2]));
    });

    it("counts the gas a call hands on in the call's cost, as geth does", async () => {
      const tree = await trace<Frame>('debug_traceTransaction', [
        probe.transactionHash,
        { tracer: 'callTracer' },
      ]);
      const calls = result.structLogs.filter((log) =>
        ['CALL', 'DELEGATECALL', 'STATICCALL', 'CALLCODE'].includes(log.op),
      );
      const frames = tree.calls!.filter((frame) => !frame.type.startsWith('CREATE'));
      expect(calls).toHaveLength(frames.length);
      calls.forEach((log, index) => {
        const frame = frames[index];
        const stipend = frame.type === 'CALL' && BigInt(frame.value ?? 0) > 0n ? 2300 : 0;
        // What is left is the call's own fee: account access, value transfer, memory.
        const own = log.gasCost - (Number(frame.gas) - stipend);
        expect(own).toBeGreaterThanOrEqual(100);
        expect(own).toBeLessThan(40_000);
      });
    });

    it('shows storage at SLOAD and SSTORE, memory on request, no stack when disabled', async () => {
      const store = result.structLogs.find((log) => log.op === 'SSTORE')!;
      expect(store.storage).toEqual({
        [zeroPadValue('0x01', 32).slice(2)]: zeroPadValue('0x01', 32).slice(2),
      });
      const options = await trace<StructLogResult>('debug_traceTransaction', [
        probe.transactionHash,
        { enableMemory: true, disableStack: true, disableStorage: true, limit: 40 },
      ]);
      expect(options.structLogs).toHaveLength(40);
      for (const log of options.structLogs) {
        expect(log.stack).toBeUndefined();
        expect(log.storage).toBeUndefined();
        expect(Array.isArray(log.memory)).toBe(true);
      }
      expect(options.structLogs.at(-1)!.memory!.every((word) => /^[0-9a-f]{64}$/.test(word))).toBe(
        true,
      );
    });
  });

  describe('prestateTracer', () => {
    const at = (block: bigint) => toQuantity(block);

    it('lists exactly the touched accounts and slots, as they were before', async () => {
      const pre = await trace<Prestate>('debug_traceTransaction', [
        probe.transactionHash,
        { tracer: 'prestateTracer' },
      ]);
      const block = await provider.send('eth_getBlockByNumber', [probe.blockNumber, false]);
      const coinbase = (block.miner as string).toLowerCase();
      expect(Object.keys(pre).sort()).toEqual(
        [wallet.address.toLowerCase(), proberAddress, calleeAddress, coinbase].sort(),
      );
      const parent = at(BigInt(probe.blockNumber) - 1n);
      for (const [address, account] of Object.entries(pre)) {
        expect(account.balance).toBe(await provider.send('eth_getBalance', [address, parent]));
      }
      expect(Object.keys(pre[proberAddress].storage!).sort()).toEqual([
        zeroPadValue('0x00', 32),
        zeroPadValue('0x01', 32),
      ]);
      expect(Object.keys(pre[calleeAddress].storage!)).toEqual([zeroPadValue('0x00', 32)]);
      expect(pre[proberAddress].code).toBe(loadContract('Prober').deployedBytecode);
    });

    it('in diffMode gives what changed before and after, checked against the chain', async () => {
      const { pre, post } = await trace<{ pre: Prestate; post: Prestate }>(
        'debug_traceTransaction',
        [probe.transactionHash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }],
      );
      const salted = getCreate2Address(
        proberAddress,
        zeroPadValue('0x01', 32),
        keccak256(loadContract('Child').bytecode),
      ).toLowerCase();
      expect(Object.keys(post)).toContain(salted);
      expect(Object.keys(pre)).not.toContain(salted);
      expect(post[salted].code).toBe(loadContract('Child').deployedBytecode);
      const parent = at(BigInt(probe.blockNumber) - 1n);
      for (const [address, account] of Object.entries(post)) {
        if (account.balance !== undefined) {
          expect(account.balance).toBe(
            await provider.send('eth_getBalance', [address, probe.blockNumber]),
          );
          expect(pre[address]?.balance ?? '0x0').toBe(
            await provider.send('eth_getBalance', [address, parent]),
          );
        }
        for (const [slot, value] of Object.entries(account.storage ?? {})) {
          expect(value).toBe(
            await provider.send('eth_getStorageAt', [address, slot, probe.blockNumber]),
          );
        }
      }
      expect(post[proberAddress].storage).toEqual({
        [zeroPadValue('0x00', 32)]: zeroPadValue('0x09', 32),
        [zeroPadValue('0x01', 32)]: zeroPadValue('0x01', 32),
      });
      expect(post[proberAddress].nonce).toBe(3);
      expect(pre[proberAddress].nonce).toBe(1);
    });
  });

  it('counts selectors with the 4byteTracer and answers {} with the noopTracer', async () => {
    const counts = await trace<Record<string, number>>('debug_traceTransaction', [
      probe.transactionHash,
      { tracer: '4byteTracer' },
    ]);
    const key = (name: string) => `${callee.getFunction(name)!.selector}-32`;
    expect(counts).toEqual({
      [`${prober.interface.getFunction('probe')!.selector}-32`]: 1,
      [`${callee.getFunction('ping')!.selector}-0`]: 1,
      [key('setStored')]: 2,
      [`${callee.getFunction('peek')!.selector}-0`]: 1,
      [`${new Interface(loadContract('Child').abi).getFunction('destroy')!.selector}-32`]: 1,
      [key('boom')]: 1,
    });
    expect(
      await trace('debug_traceTransaction', [probe.transactionHash, { tracer: 'noopTracer' }]),
    ).toEqual({});
  });

  describe("failures in geth's words", () => {
    const failing = '0x00000000000000000000000000000000000000fa';
    /** Every tracer's view of a call to `code`. */
    const traced = async (code: string) => {
      const call = { to: failing, gas: '0x186a0' };
      const traceWith = <T>(config: Record<string, unknown>) =>
        trace<T>('debug_traceCall', [
          call,
          'latest',
          { ...config, stateOverrides: { [failing]: { code } } },
        ]);
      const [structLogged, frame, flat] = await Promise.all([
        traceWith<StructLogResult>({}),
        traceWith<Frame>({ tracer: 'callTracer' }),
        traceWith<Array<{ error?: string }>>({
          tracer: 'flatCallTracer',
          tracerConfig: { convertParityErrors: true },
        }),
      ]);
      const last = structLogged.structLogs.at(-1)!;
      return { op: last.op, stepError: last.error, error: frame.error, parity: flat[0].error };
    };

    it('says "invalid jump destination" for a jump to no JUMPDEST', async () => {
      // PUSH1 0, JUMP: to the PUSH1.
      expect(await traced('0x600056')).toEqual({
        op: 'JUMP',
        stepError: 'invalid jump destination',
        error: 'invalid jump destination',
        parity: 'Bad jump destination',
      });
    });

    it('names an undefined opcode by its byte, and 0xfe INVALID', async () => {
      expect(await traced('0x0c')).toEqual({
        op: 'opcode 0xc not defined',
        stepError: 'invalid opcode: opcode 0xc not defined',
        error: 'invalid opcode: opcode 0xc not defined',
        parity: 'Bad instruction',
      });
      expect(await traced('0xfe')).toEqual({
        op: 'INVALID',
        stepError: 'invalid opcode: INVALID',
        error: 'invalid opcode: INVALID',
        parity: 'Bad instruction',
      });
    });
  });

  it('flattens the tree with the flatCallTracer, Parity style', async () => {
    const flat = await trace<Array<Record<string, unknown>>>('debug_traceTransaction', [
      probe.transactionHash,
      { tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } },
    ]);
    expect(flat.map((entry) => entry.traceAddress)).toEqual([
      [],
      [0],
      [1],
      [2],
      [3],
      [4],
      [5],
      [6],
      [6, 0],
      [7],
    ]);
    expect(flat.map((entry) => entry.type)).toEqual([
      'call',
      'call',
      'call',
      'call',
      'call',
      'create',
      'create',
      'call',
      'suicide',
      'call',
    ]);
    expect(flat[0]).toMatchObject({
      blockHash: probe.blockHash,
      blockNumber: Number(probe.blockNumber),
      transactionHash: probe.transactionHash,
      transactionPosition: 0,
      subtraces: 8,
      result: { gasUsed: probe.gasUsed, output: zeroPadValue('0x04', 32) },
    });
    expect(flat[9].error).toBe('Reverted');
    expect(flat[8].action).toMatchObject({
      balance: '0x5',
      refundAddress: wallet.address.toLowerCase(),
    });
  });

  it('traces a call like the same transaction once mined', async () => {
    const mined = await trace<Frame>('debug_traceTransaction', [
      probe.transactionHash,
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ]);
    const called = await trace<Frame>('debug_traceCall', [
      {
        from: wallet.address,
        to: proberAddress,
        value: '0xa',
        gas: toBeHex(PROBE_GAS),
        input: probeInput,
      },
      toQuantity(BigInt(probe.blockNumber) - 1n),
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ]);
    expect(called).toEqual(mined);
  });

  it('applies state overrides to a traced call', async () => {
    const stranger = '0x00000000000000000000000000000000000000aa';
    const frame = await trace<Frame>('debug_traceCall', [
      { from: stranger, to: calleeAddress, input: callee.encodeFunctionData('peek') },
      'latest',
      {
        tracer: 'callTracer',
        stateOverrides: {
          [stranger]: { balance: '0x10' },
          [calleeAddress]: { stateDiff: { [zeroPadValue('0x00', 32)]: zeroPadValue('0x2a', 32) } },
        },
      },
    ]);
    expect(frame.output).toBe(zeroPadValue('0x2a', 32));
    expect(frame.from).toBe(stranger);
  });

  it('applies block overrides to a traced call, as eth_call does', async () => {
    // Runtime code that returns NUMBER ‖ COINBASE, two words.
    const probeHeader = '0x436000524160205260406000f3';
    const probeAddress = '0x00000000000000000000000000000000000000ce';
    const feeRecipient = '0x00000000000000000000000000000000000000fe';
    const frame = await trace<Frame>('debug_traceCall', [
      { to: probeAddress },
      'latest',
      {
        tracer: 'callTracer',
        stateOverrides: { [probeAddress]: { code: probeHeader } },
        blockOverrides: { number: '0x12345', feeRecipient },
      },
    ]);
    expect(frame.output).toBe(
      concat([zeroPadValue('0x012345', 32), zeroPadValue(feeRecipient, 32)]),
    );
    const refused = await rpcError(
      trace('debug_traceCall', [
        { to: probeAddress },
        'latest',
        { blockOverrides: { withdrawals: [] } },
      ]),
    );
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(/withdrawals/);
  });

  it('traces whole blocks by number, by hash and as RLP', async () => {
    const single = await trace('debug_traceTransaction', [
      probe.transactionHash,
      { tracer: 'callTracer' },
    ]);
    const expected = [{ txHash: probe.transactionHash, result: single }];
    const config = { tracer: 'callTracer' };
    expect(await trace('debug_traceBlockByNumber', [probe.blockNumber, config])).toEqual(expected);
    expect(await trace('debug_traceBlockByHash', [probe.blockHash, config])).toEqual(expected);
    const raw = await trace<string>('debug_getRawBlock', [probe.blockNumber]);
    expect(await trace('debug_traceBlock', [raw, config])).toEqual(expected);
  });

  it('gives raw headers, blocks, receipts and transactions that hash as the chain says', async () => {
    const header = await trace<string>('debug_getRawHeader', [probe.blockHash]);
    expect(keccak256(header)).toBe(probe.blockHash);
    const block = decodeRlp(await trace<string>('debug_getRawBlock', [probe.blockNumber]));
    expect(keccak256(encodeRlp((block as string[][])[0]))).toBe(probe.blockHash);
    const tx = await trace<string>('debug_getRawTransaction', [probe.transactionHash]);
    expect(keccak256(tx)).toBe(probe.transactionHash);
    const receipts = await trace<string[]>('debug_getRawReceipts', [probe.blockNumber]);
    expect(receipts).toHaveLength(1);
    expect(receipts[0].startsWith('0x02')).toBe(true);
    const [status, cumulative, , logs] = decodeRlp(`0x${receipts[0].slice(4)}`) as string[];
    expect([status, BigInt(cumulative), logs.length]).toEqual([
      '0x01',
      BigInt(probe.gasUsed as string),
      4,
    ]);
    expect(await trace('debug_getBadBlocks', [])).toEqual([]);
    expect(await trace('debug_getRawTransaction', [zeroPadValue('0x01', 32)])).toBeNull();
    // The eth namespace's raw getters give the same bytes, by hash and by place in the block.
    const index = probe.transactionIndex;
    expect(await trace('eth_getRawTransactionByHash', [probe.transactionHash])).toBe(tx);
    expect(
      await trace('eth_getRawTransactionByBlockNumberAndIndex', [probe.blockNumber, index]),
    ).toBe(tx);
    expect(await trace('eth_getRawTransactionByBlockHashAndIndex', [probe.blockHash, index])).toBe(
      tx,
    );
    expect(await trace('eth_getRawTransactionByHash', [zeroPadValue('0x01', 32)])).toBeNull();
    expect(
      await trace('eth_getRawTransactionByBlockNumberAndIndex', [probe.blockNumber, '0x7']),
    ).toBeNull();
  });

  it('refuses unknown tracers, JavaScript tracers, bad options and unknown transactions', async () => {
    const refusal = (config: unknown, hash = probe.transactionHash) =>
      trace('debug_traceTransaction', [hash, config]).then(
        () => undefined,
        (error: RpcResponseError) => ({ code: error.code, message: error.message }),
      );
    expect(await refusal({ tracer: 'opcodeCounter' })).toEqual({
      code: -32602,
      message: expect.stringContaining('unknown tracer "opcodeCounter"'),
    });
    expect(await refusal({ tracer: '{step: function(log) {}, result: function() {}}' })).toEqual({
      code: -32602,
      message: expect.stringContaining('JavaScript tracers are not supported'),
    });
    expect(await refusal({ timeout: 'soon' })).toMatchObject({
      message: expect.stringContaining('invalid timeout "soon"'),
    });
    expect(await refusal({ tracer: 'callTracer', tracerConfig: { diffMode: true } })).toMatchObject(
      {
        message: expect.stringContaining('callTracer has no option diffMode'),
      },
    );
    expect(await refusal({}, zeroPadValue('0x01', 32))).toMatchObject({
      code: -32000,
      message: 'transaction not found',
    });
    for (const genesis of ['0x0', 'earliest']) {
      expect(
        await trace('debug_traceBlockByNumber', [genesis]).catch((error: RpcResponseError) => ({
          code: error.code,
          message: error.message,
        })),
      ).toEqual({ code: -32000, message: 'genesis is not traceable' });
    }
    expect(
      await trace('debug_traceBlockByNumber', ['0xffff']).catch((error: Error) => error.message),
    ).toBe('block #65535 not found');
  });

  it("takes timeouts in both of Go's micro signs and up to Go's longest duration", async () => {
    const noop = (timeout: string) =>
      trace('debug_traceTransaction', [probe.transactionHash, { tracer: 'noopTracer', timeout }]);
    // U+00B5 (micro sign) and U+03BC (Greek mu): Go takes both.
    expect(await noop('5000000\u00b5s')).toEqual({});
    expect(await noop('5000000\u03bcs')).toEqual({});
    expect(await noop('597h')).toEqual({});
    expect(
      await noop('2562048h').catch((error: RpcResponseError) => ({
        code: error.code,
        message: error.message,
      })),
    ).toEqual({
      code: -32602,
      message: expect.stringContaining("longer than Go's longest duration"),
    });
  });

  it('refuses every tracing method without the token', async () => {
    const methods: Array<[string, unknown[]]> = [
      ['debug_traceTransaction', [probe.transactionHash]],
      ['debug_traceBlockByNumber', [probe.blockNumber]],
      ['debug_traceBlockByHash', [probe.blockHash]],
      ['debug_traceBlock', ['0x']],
      ['debug_traceCall', [{ to: calleeAddress }, 'latest']],
      ['debug_getRawHeader', ['latest']],
      ['debug_getRawBlock', ['latest']],
      ['debug_getRawReceipts', ['latest']],
      ['debug_getRawTransaction', [probe.transactionHash]],
      ['debug_getBadBlocks', []],
    ];
    for (const [method, params] of methods) {
      const error = await daemon.rpc.call(method, params).then(
        () => undefined,
        (failure: RpcResponseError) => failure,
      );
      expect({ method, code: error?.code }).toEqual({ method, code: -32001 });
    }
  });

  it('lets cast run replay a transaction', async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        CAST,
        ['run', '--rpc-url', daemon.endpoints.http, probe.transactionHash],
        { timeout: 60_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`cast run: ${stderr}`)) : resolve(stdout),
      ),
    );
    expect(output).toMatch(/Transaction successfully executed/);
    expect(output).toContain('Gas used: ' + BigInt(probe.gasUsed as string).toString());
  }, 90_000);

  describe('tx trace', () => {
    const proberAbi = fileURLToPath(new URL('../fixtures/contracts/Prober.json', import.meta.url));
    beforeAll(async () => {
      const rest = new RestClient(daemon.endpoints.rest!, { token: daemon.token });
      await rest.addContract('Callee', calleeAddress, loadContract('Callee').abi as unknown[]);
      await rest.close();
    });

    it('prints the call tree with names from the registry and --abi', async () => {
      const { code, stdout } = await runCli([
        'tx',
        'trace',
        probe.transactionHash,
        '--datadir',
        daemon.dataDir,
        '--abi',
        proberAbi,
      ]);
      expect(code).toBe(0);
      const lines = stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(
        `CALL ${getAddress(proberAddress)}.probe(${getAddress(calleeAddress)})  0.00000000000000001 ETH  ` +
          `gas ${BigInt(probe.gasUsed as string)}/${PROBE_GAS}  ✓`,
      );
      expect(lines.slice(1)).toEqual([
        `├─ CALL Callee(${getAddress(calleeAddress)}).ping()  0.000000000000000003 ETH  gas 1681/1424186  ✓`,
        expect.stringMatching(/^│ {2}└─ emit Pinged\(0x[0-9a-fA-F]{40}, 3\)$/),
        expect.stringMatching(/^├─ emit Step\(ping, 4\)$/),
        expect.stringMatching(
          /^├─ DELEGATECALL Callee\(0x[0-9a-fA-F]{40}\)\.setStored\(7\) {2}0\.00000000000000001 ETH {2}gas \d+\/\d+ {2}✓$/,
        ),
        expect.stringMatching(
          /^├─ STATICCALL Callee\(0x[0-9a-fA-F]{40}\)\.peek\(\) {2}gas \d+\/\d+ {2}✓$/,
        ),
        expect.stringMatching(
          /^├─ CALLCODE Callee\(0x[0-9a-fA-F]{40}\)\.setStored\(9\) {2}gas \d+\/\d+ {2}✓$/,
        ),
        expect.stringMatching(
          /^├─ CREATE 0x[0-9a-fA-F]{40} \(\d+ bytes of init code\) {2}0\.000000000000000005 ETH {2}gas \d+\/\d+ {2}✓$/,
        ),
        expect.stringMatching(
          /^├─ CREATE2 0x[0-9a-fA-F]{40} \(\d+ bytes of init code\) {2}gas \d+\/\d+ {2}✓$/,
        ),
        expect.stringMatching(/^├─ CALL 0x[0-9a-fA-F]{40} input 0x00f55d9d… {2}gas \d+\/\d+ {2}✓$/),
        expect.stringMatching(
          /^│ {2}└─ SELFDESTRUCT 0x[0-9a-fA-F]{40} → 0x[0-9a-fA-F]{40} {2}0\.000000000000000005 ETH {2}✓$/,
        ),
        expect.stringMatching(
          /^├─ STATICCALL Callee\(0x[0-9a-fA-F]{40}\)\.boom\(2\) {2}gas \d+\/\d+ {2}✗ execution reverted: Callee: boom 2$/,
        ),
        expect.stringMatching(/^├─ emit Step\(caught, 0\)$/),
        expect.stringMatching(/^└─ emit Step\(done, \d+\)$/),
      ]);
    });

    it("prints geth's JSON with --json, and the other tracers' views", async () => {
      expect(
        await runCliJson(['tx', 'trace', probe.transactionHash, '--datadir', daemon.dataDir]),
      ).toEqual(
        await trace('debug_traceTransaction', [
          probe.transactionHash,
          { tracer: 'callTracer', tracerConfig: { withLog: true } },
        ]),
      );
      const selectors = await runCli([
        'tx',
        'trace',
        probe.transactionHash,
        '--tracer',
        '4byte',
        '--datadir',
        daemon.dataDir,
      ]);
      expect(selectors.stdout).toMatch(/0x5c36b186-0\s+1\s+Callee\.ping/);
      const prestate = await runCli([
        'tx',
        'trace',
        probe.transactionHash,
        '--tracer',
        'prestate',
        '--datadir',
        daemon.dataDir,
      ]);
      expect(prestate.stdout).toContain(`${getAddress(calleeAddress)} Callee`);
      const steps = await runCli([
        'tx',
        'trace',
        probe.transactionHash,
        '--tracer',
        'struct',
        '--datadir',
        daemon.dataDir,
      ]);
      expect(steps.stdout).toMatch(new RegExp(`gas used\\s+${BigInt(probe.gasUsed as string)}`));
      expect(steps.stdout).toMatch(/outcome\s+succeeded/);
    });
  });

  describe('a long trace', () => {
    let spin: RawReceipt;
    beforeAll(async () => {
      spin = await send('spin', [60_000], 25_000_000n);
      expect(spin.status).toBe('0x1');
    }, 60_000);

    it("ends at its timeout with geth's error", async () => {
      const error = await trace('debug_traceTransaction', [
        spin.transactionHash,
        { timeout: '50ms' },
      ]).then(
        () => undefined,
        (failure: RpcResponseError) => failure,
      );
      expect(error?.message).toBe('execution timeout');
    });

    it('refuses a struct log past the most a trace answers, with the request id', async () => {
      const response = await fetch(daemon.endpoints.http, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${daemon.token}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 42,
          method: 'debug_traceTransaction',
          params: [spin.transactionHash, { timeout: '120s' }],
        }),
      });
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: 42,
        error: {
          code: -32005,
          message: expect.stringContaining(
            'trace result exceeds 10000000 bytes (--json-rpc.trace-result-max-size)',
          ),
        },
      });
    }, 150_000);

    it('holds up neither other requests nor block production', async () => {
      const order: string[] = [];
      const tracing = trace('debug_traceTransaction', [
        spin.transactionHash,
        { tracer: 'callTracer', timeout: '120s' },
      ]).then(() => order.push('trace'));
      const blockNumber = await provider.send('eth_blockNumber', []);
      order.push('eth_blockNumber');
      const next = await send('spin', [1], 100_000n);
      order.push('block');
      expect(BigInt(next.blockNumber)).toBeGreaterThan(BigInt(blockNumber));
      await tracing;
      expect(order).toEqual(['eth_blockNumber', 'block', 'trace']);
    }, 150_000);
  });
});
