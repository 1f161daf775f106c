/**
 * Logs and polling filters over HTTP against a real daemon (`--json-rpc.ethereum-compat
 * --block-time 0`): ethers v6 `contract.on` (which installs an `eth_newFilter` and polls
 * `eth_getFilterChanges`), `queryFilter` (eth_getLogs), the range and result limits as flags,
 * geth's range errors, and block and pending-transaction filters.
 *
 * Transactions are awaited by polling for their receipt (see eth-ethers.test.ts for why).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  id as eventTopic,
  toQuantity,
  zeroPadValue,
  type Wallet,
} from 'ethers';
import { RpcResponseError } from '../../src/client/errors.js';
import { loadContract } from '../helpers/contracts.js';
import { devWallet, waitForReceipt, type RawReceipt } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const LOGS_CAP = 600;
const RANGE_CAP = 5;
const TICK = eventTopic('Tick(uint256)');

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed: boolean;
}

describe('logs and polling filters over HTTP (ethers v6, --block-time 0)', () => {
  let daemon: TestDaemon;
  let provider: JsonRpcProvider;
  let wallet: Wallet;
  let fixture: Contract;
  let fixtureAddress: string;

  const send = async (method: string, ...args: unknown[]): Promise<RawReceipt> => {
    const response = (await fixture.getFunction(method)(...args)) as { hash: string };
    const receipt = await waitForReceipt(daemon.rpc, response.hash);
    expect(receipt.status).toBe('0x1');
    return receipt;
  };

  const rpcError = async (method: string, params: unknown[]): Promise<RpcResponseError> => {
    const error = await daemon.rpc.call(method, params).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcResponseError);
    return error as RpcResponseError;
  };

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--json-rpc.ethereum-compat',
      '--block-time',
      '0',
      '--json-rpc.logs-cap',
      String(LOGS_CAP),
      '--json-rpc.block-range-cap',
      String(RANGE_CAP),
    ]);
    provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      cacheTimeout: -1,
      pollingInterval: 100,
    });
    wallet = devWallet(0).connect(provider);
    const artifact = loadContract('Fixture');
    const factory = new ContractFactory(artifact.abi, artifact.bytecode, wallet);
    const deployment = await factory.deploy();
    const receipt = await waitForReceipt(daemon.rpc, deployment.deploymentTransaction()!.hash);
    fixtureAddress = receipt.contractAddress as string;
    fixture = new Contract(fixtureAddress, artifact.abi, wallet);
  }, 60_000);

  afterAll(async () => {
    provider?.destroy();
    await daemon?.stop();
  });

  it('delivers contract events to ethers contract.on through a polling filter', async () => {
    const seen: Array<{ who: string; value: bigint; note: string }> = [];
    await fixture.on('ValueSet', (who: string, value: bigint, note: string) => {
      seen.push({ who, value, note });
    });
    // ethers polls a filter's changes once per new block, and asks for the next block only after
    // its poll is done: a block mined while it polls (here the second transaction's, at block time
    // 0) is not polled for until another block comes, as with geth or anvil. So the second
    // transaction goes once the first event has arrived, as the next block would on a live chain.
    await send('set', 7n);
    await waitFor(() => seen.length >= 1, 15_000, 'the first ValueSet event');
    await send('set', 8n);
    await waitFor(() => seen.length >= 2, 15_000, 'two ValueSet events');
    expect(seen).toEqual([
      { who: wallet.address, value: 7n, note: 'set' },
      { who: wallet.address, value: 8n, note: 'set' },
    ]);
    await fixture.removeAllListeners();
  });

  it('answers eth_getLogs by address and positional topics, and ethers queryFilter', async () => {
    const receipt = await send('emitMany', 300n);
    const block = receipt.blockNumber;
    const logs = await daemon.rpc.call<RpcLog[]>('eth_getLogs', [
      { fromBlock: block, toBlock: block, address: fixtureAddress, topics: [TICK] },
    ]);
    expect(logs).toHaveLength(300);
    expect(logs[5]).toEqual({
      address: fixtureAddress.toLowerCase(),
      topics: [TICK, zeroPadValue('0x05', 32)],
      data: '0x',
      blockNumber: block,
      blockHash: receipt.blockHash,
      blockTimestamp: (
        await daemon.rpc.call<{ timestamp: string }>('eth_getBlockByHash', [
          receipt.blockHash,
          false,
        ])
      ).timestamp,
      transactionHash: receipt.transactionHash,
      transactionIndex: '0x0',
      logIndex: '0x5',
      removed: false,
    });
    const seventh = await daemon.rpc.call<RpcLog[]>('eth_getLogs', [
      { blockHash: receipt.blockHash, topics: [null, [zeroPadValue('0x07', 32)]] },
    ]);
    expect(seventh.map((log) => log.logIndex)).toEqual(['0x7']);
    const events = await fixture.queryFilter(
      fixture.filters.Tick(299n),
      Number(block),
      Number(block),
    );
    expect(events).toHaveLength(1);
  });

  it('refuses what geth refuses, with geth’s messages', async () => {
    const head = await daemon.rpc.call<string>('eth_blockNumber');
    const reversed = await rpcError('eth_getLogs', [{ fromBlock: head, toBlock: '0x1' }]);
    expect([reversed.code, reversed.message]).toEqual([-32602, 'invalid block range params']);
    const future = toQuantity(BigInt(head) + 3n);
    const beyond = await rpcError('eth_getLogs', [{ fromBlock: head, toBlock: future }]);
    expect([beyond.code, beyond.message]).toEqual([
      -32602,
      'block range extends beyond current head block',
    ]);
    const both = await rpcError('eth_getLogs', [
      { blockHash: zeroPadValue('0x01', 32), fromBlock: '0x1', toBlock: '0x2' },
    ]);
    expect([both.code, both.message]).toEqual([
      -32602,
      'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
    ]);
  });

  it('enforces --json-rpc.block-range-cap and --json-rpc.logs-cap', async () => {
    const receipt = await send('emitMany', BigInt(LOGS_CAP + 1));
    const many = await rpcError('eth_getLogs', [{ blockHash: receipt.blockHash }]);
    expect(many.code).toBe(-32005);
    expect(many.message).toContain('--json-rpc.logs-cap');
    expect(BigInt(receipt.blockNumber)).toBeGreaterThanOrEqual(RANGE_CAP);
    const range = await rpcError('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    expect(range.code).toBe(-32005);
    expect(range.message).toContain('--json-rpc.block-range-cap');
    const within = toQuantity(BigInt(receipt.blockNumber) - BigInt(RANGE_CAP) + 1n);
    const elsewhere = { fromBlock: within, toBlock: 'latest', address: wallet.address };
    expect(await daemon.rpc.call('eth_getLogs', [elsewhere])).toEqual([]);
  });

  it('serves block and pending-transaction filters, and uninstalls them', async () => {
    const blocks = await daemon.rpc.call<string>('eth_newBlockFilter');
    const pending = await daemon.rpc.call<string>('eth_newPendingTransactionFilter');
    const receipt = await send('set', 9n);
    expect(await daemon.rpc.call('eth_getFilterChanges', [blocks])).toEqual([receipt.blockHash]);
    expect(await daemon.rpc.call('eth_getFilterChanges', [pending])).toEqual([
      receipt.transactionHash,
    ]);
    expect(await daemon.rpc.call('eth_getFilterChanges', [blocks])).toEqual([]);
    const notLogs = await rpcError('eth_getFilterLogs', [blocks]);
    expect([notLogs.code, notLogs.message]).toEqual([
      -32000,
      `filter ${blocks} doesn't have a LogsSubscription type: got 5`,
    ]);
    expect(await daemon.rpc.call('eth_uninstallFilter', [blocks])).toBe(true);
    expect(await daemon.rpc.call('eth_uninstallFilter', [blocks])).toBe(false);
    expect(await daemon.rpc.call('eth_uninstallFilter', [pending])).toBe(true);
  });

  it('gives eth_getFilterLogs the history of a log filter', async () => {
    const receipt = await send('set', 10n);
    const filter = await daemon.rpc.call<string>('eth_newFilter', [
      { fromBlock: receipt.blockNumber, address: fixtureAddress },
    ]);
    const logs = await daemon.rpc.call<RpcLog[]>('eth_getFilterLogs', [filter]);
    expect(logs.map((log) => log.transactionHash)).toEqual([receipt.transactionHash]);
    const next = await send('set', 11n);
    const changes = await daemon.rpc.call<RpcLog[]>('eth_getFilterChanges', [filter]);
    expect(changes.map((log) => log.transactionHash)).toEqual([next.transactionHash]);
  });
});
