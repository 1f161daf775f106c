/**
 * `logs watch -F` across a daemon restart: the stream reconnects (the daemon comes back on new
 * ports, found again through the data directory) and resumes from where it was, so the logs of
 * before and after the restart are each printed once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Interface, type Wallet } from 'ethers';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { runCli, runCliJson, startStreaming } from '../helpers/cli.js';
import { loadContract } from '../helpers/contracts.js';
import { devWallet, sendAndWait, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { LOOPBACK_FLAGS, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const fixtureAbi = new Interface(loadContract('Fixture').abi);

describe('logs watch -F', () => {
  let daemon: TestDaemon;
  let wallet: Wallet;
  let nonce = 0;
  let fixture: string;

  async function send(rpc: HttpRpcClient, data: string, to?: string): Promise<string | null> {
    const raw = await signDynamicFeeTx(wallet, { nonce: nonce++, to, gasLimit: 2_000_000n, data });
    const receipt = await sendAndWait(rpc, raw);
    expect(receipt.status).toBe('0x1');
    return receipt.contractAddress as string | null;
  }

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
    wallet = devWallet(1);
    fixture = (await send(daemon.rpc, loadContract('Fixture').bytecode)) as string;
    await send(daemon.rpc, fixtureAbi.encodeFunctionData('set', [1n]), fixture);
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  it('resumes after the daemon restarts, without gaps or repeats', async () => {
    const watch = startStreaming([
      'logs',
      'watch',
      '-F',
      '--json',
      '--from-block',
      '0',
      '--address',
      fixture,
      '--datadir',
      daemon.dataDir,
    ]);
    await waitFor(() => watch.lines.length === 1, 20_000, 'the replayed log');

    expect((await runCli(['daemon', 'stop', '--datadir', daemon.dataDir])).code).toBe(0);
    await waitFor(() => watch.stderr().includes('reconnecting'), 20_000, 'the reconnect notice');
    const restarted = await runCliJson<{ endpoints: { http: string } }>([
      'daemon',
      'start',
      '--datadir',
      daemon.dataDir,
      ...LOOPBACK_FLAGS,
      '--block-time',
      '0',
    ]);
    const rpc = new HttpRpcClient(restarted.endpoints.http);
    try {
      await waitFor(
        () => watch.stderr().split('watching logs').length === 3,
        30_000,
        'the second subscription',
      );
      await send(rpc, fixtureAbi.encodeFunctionData('set', [2n]), fixture);
      await waitFor(() => watch.lines.length === 2, 20_000, 'the log after the restart');
    } finally {
      await rpc.close();
    }
    const logs = watch.lines.map(
      (line) => JSON.parse(line) as { blockHash: string; logIndex: string; data: string },
    );
    expect(new Set(logs.map((log) => `${log.blockHash}:${log.logIndex}`)).size).toBe(2);
    expect(await watch.interrupt()).toBe(0);
    expect(watch.lines).toHaveLength(2);
  });
});
