/**
 * The streaming commands against a real daemon (`--block-time 0`): `logs watch` replays history
 * and follows new logs decoded with the Fixture ABI, `events tail` receives the Tx event of a
 * transfer; both end with exit 0 on SIGINT. Bad flags exit 2, a bad query exits 1.
 *
 * The commands run as child processes; each says on stderr once it is subscribed, which is
 * when the test sends the transactions it expects to see.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Interface, type Wallet } from 'ethers';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { watchLogs, type RpcLog } from '../../src/cli/log-watcher.js';
import type { Notification } from '../../src/client/ws-rpc-client.js';
import { CLI_ENTRY, runCli, startStreaming } from '../helpers/cli.js';
import { loadContract } from '../helpers/contracts.js';
import { devWallet, sendAndWait, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ABI_FILE = fileURLToPath(new URL('../fixtures/contracts/Fixture.json', import.meta.url));
const fixtureAbi = new Interface(loadContract('Fixture').abi);

/** Runs `node-cli <command>` in a bash pipeline; `done` has every stage's exit status. */
function startPiped(command: string): {
  stderr: () => string;
  done: Promise<{ statuses: string[]; stdout: string }>;
} {
  const child = spawn(
    'bash',
    [
      '-c',
      `"${process.execPath}" "${CLI_ENTRY}" ${command}; echo "statuses=\${PIPESTATUS[*]}" >&2`,
    ],
    { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ statuses: string[]; stdout: string }>((resolve) =>
    child.once('exit', () => {
      const statuses = /statuses=(.*)/.exec(stderr)?.[1]?.trim().split(' ') ?? [];
      resolve({ statuses, stdout });
    }),
  );
  return { stderr: () => stderr.replace(/statuses=.*\n?/, ''), done };
}

interface LogLine {
  blockHash: string;
  logIndex: string;
  address: string;
  event?: { name: string; args: Record<string, unknown> };
}

describe('node-cli logs watch and events tail', () => {
  let daemon: TestDaemon;
  let wallet: Wallet;
  let nonce = 0;
  let fixtureAddress: string;

  const callFixture = async (method: string, args: unknown[]): Promise<void> => {
    const raw = await signDynamicFeeTx(wallet, {
      nonce: nonce++,
      to: fixtureAddress,
      gasLimit: 500_000n,
      data: fixtureAbi.encodeFunctionData(method, args),
    });
    expect((await sendAndWait(daemon.rpc, raw)).status).toBe('0x1');
  };

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
    wallet = devWallet(0);
    const deployment = await signDynamicFeeTx(wallet, {
      nonce: nonce++,
      gasLimit: 2_000_000n,
      data: loadContract('Fixture').bytecode,
    });
    const receipt = await sendAndWait(daemon.rpc, deployment);
    fixtureAddress = receipt.contractAddress as string;
    await callFixture('set', [7n]);
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  it('replays history, follows new logs decoded with the ABI, and ends on SIGINT', async () => {
    const watch = startStreaming([
      'logs',
      'watch',
      '--json',
      '--from-block',
      '0',
      '--abi',
      ABI_FILE,
      '--address',
      fixtureAddress,
      '--datadir',
      daemon.dataDir,
    ]);
    const parsed = (): LogLine[] => watch.lines.map((line) => JSON.parse(line) as LogLine);
    const named = (name: string): LogLine[] => parsed().filter((log) => log.event?.name === name);
    await waitFor(() => watch.stderr().includes('watching logs'), 20_000, 'the subscription');
    // stdout and stderr are separate pipes: the replayed lines may arrive after the notice.
    await waitFor(() => named('ValueSet').length === 1, 20_000, 'the replayed ValueSet log');
    expect(named('ValueSet').map((log) => log.event?.args)).toEqual([
      { who: DEV_ADDRESSES[0], value: '7', note: 'set' },
    ]);

    await callFixture('emitMany', [3n]);
    await callFixture('set', [8n]);
    await waitFor(() => named('ValueSet').length === 2, 20_000, 'the new ValueSet log');

    expect(named('Tick').map((log) => log.event?.args)).toEqual([
      { index: '0' },
      { index: '1' },
      { index: '2' },
    ]);
    expect(named('ValueSet')[1].event?.args).toEqual({
      who: DEV_ADDRESSES[0],
      value: '8',
      note: 'set',
    });
    const keys = parsed().map((log) => `${log.blockHash}:${log.logIndex}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(
      parsed().every((log) => log.address.toLowerCase() === fixtureAddress.toLowerCase()),
    ).toBe(true);
    expect(await watch.interrupt()).toBe(0);
  });

  it('prints one human line per log', async () => {
    const watch = startStreaming([
      'logs',
      'watch',
      '--from-block',
      '0',
      '--abi',
      ABI_FILE,
      '--datadir',
      daemon.dataDir,
    ]);
    const humanLine = /^#\d+ 0x[0-9a-f]{8}…[0-9a-f]{4} 0x[0-9a-fA-F]{40} ValueSet\(who="0x/;
    await waitFor(
      () => watch.lines.some((line) => humanLine.test(line)),
      20_000,
      `a ValueSet line; got ${JSON.stringify(watch.lines)}`,
    );
    expect(await watch.interrupt()).toBe(0);
  });

  it('tails the Tx event of a transfer and ends on SIGINT', async () => {
    const tail = startStreaming([
      'events',
      'tail',
      "tm.event='Tx'",
      '--json',
      '--datadir',
      daemon.dataDir,
    ]);
    await waitFor(() => tail.stderr().includes('subscribed to'), 20_000, 'the subscription');
    const raw = await signDynamicFeeTx(wallet, { nonce: nonce++, to: DEV_ADDRESSES[1], value: 5n });
    const receipt = await sendAndWait(daemon.rpc, raw);
    await waitFor(() => tail.lines.length > 0, 20_000, 'the Tx event');
    const event = JSON.parse(tail.lines[0]) as {
      query: string;
      type: string;
      value: { TxResult: { height: string } };
      events: Record<string, string[]>;
    };
    expect(event.query).toBe("tm.event='Tx'");
    expect(event.type).toBe('tendermint/event/Tx');
    expect(event.value.TxResult.height).toBe(String(BigInt(receipt.blockNumber)));
    expect(event.events['ethereum_tx.ethereumTxHash']).toEqual([receipt.transactionHash]);
    expect(event.events['ethereum_tx.recipient']).toEqual([DEV_ADDRESSES[1]]);
    expect(await tail.interrupt()).toBe(0);
  });

  it('stops after --count items with status 0', async () => {
    await callFixture('emitMany', [3n]);
    const watch = startStreaming([
      'logs',
      'watch',
      '--from-block',
      '0',
      '--count',
      '2',
      '--json',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(await watch.exit).toBe(0);
    expect(watch.lines).toHaveLength(2);
  });

  it('ends quietly with status 0 when the reader of its output goes away', async () => {
    await callFixture('emitMany', [3n]);
    const logs = startPiped(
      `logs watch --from-block 0 --json --datadir ${daemon.dataDir} | head -n 1`,
    );
    const tail = startPiped(
      `events tail "tm.event='Tx'" --json --datadir ${daemon.dataDir} | head -n 1`,
    );
    await waitFor(() => tail.stderr().includes('subscribed to'), 20_000, 'the subscription');
    for (let transfer = 0; transfer < 2; transfer += 1) {
      const raw = await signDynamicFeeTx(wallet, {
        nonce: nonce++,
        to: DEV_ADDRESSES[1],
        value: 5n,
      });
      await sendAndWait(daemon.rpc, raw);
    }
    // A closed reader is noticed at the next write: logs until `logs watch` has written one
    // after `head` went away.
    let logsEnded = false;
    void logs.done.then(() => (logsEnded = true));
    for (let attempt = 0; attempt < 20 && !logsEnded; attempt += 1) {
      await callFixture('set', [BigInt(100 + attempt)]);
      await Promise.race([logs.done, new Promise((resolve) => setTimeout(resolve, 500))]);
    }
    for (const piped of [logs, tail]) {
      const { statuses, stdout } = await piped.done;
      expect(statuses).toEqual(['0', '0']);
      expect(stdout.trim().split('\n')).toHaveLength(1);
      expect(piped.stderr()).not.toMatch(/EPIPE|Error/);
    }
  });

  it('refuses bad addresses and topics with exit 2', async () => {
    const badAddress = await runCli([
      'logs',
      'watch',
      '--address',
      '0x12',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(badAddress.code).toBe(2);
    expect(badAddress.message).toContain('invalid address "0x12"');
    const badTopic = await runCli([
      'logs',
      'watch',
      '--topic',
      '0xabc',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(badTopic.code).toBe(2);
    expect(badTopic.message).toContain('invalid topic "0xabc"');
    const badTopics = await runCli([
      'logs',
      'watch',
      '--topics',
      '{}',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(badTopics.code).toBe(2);
    const badBlock = await runCli([
      'logs',
      'watch',
      '--from-block',
      'soon',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(badBlock.code).toBe(2);
  });

  it('fails with the parse error of a bad query (exit 1)', async () => {
    const result = await runCli([
      'events',
      'tail',
      "tm.event='Tx' AND",
      '--datadir',
      daemon.dataDir,
    ]);
    expect(result.code).toBe(1);
    expect(result.message).toContain('failed to parse query');
  });

  it('--until-block ends logs watch and events tail once the chain is past the block', async () => {
    const head = BigInt(await daemon.rpc.call<string>('eth_blockNumber'));
    const watch = startStreaming([
      'logs',
      'watch',
      '--json',
      '--from-block',
      '0',
      '--until-block',
      String(head),
      '--address',
      fixtureAddress,
      '--datadir',
      daemon.dataDir,
    ]);
    const tail = startStreaming([
      'events',
      'tail',
      "tm.event='Tx'",
      '--json',
      '--until-block',
      `0x${(head + 1n).toString(16)}`,
      '--datadir',
      daemon.dataDir,
    ]);
    await waitFor(
      () => watch.stderr().includes('watching logs') && tail.stderr().includes('subscribed'),
      20_000,
      'both subscriptions',
    );
    // Block head+1: past the end of logs watch, inside that of events tail.
    await callFixture('set', [9n]);
    expect(await watch.exit).toBe(0);
    const logs = watch.lines.map((line) => JSON.parse(line) as LogLine & { blockNumber: string });
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.every((log) => BigInt(log.blockNumber) <= head)).toBe(true);
    // Block head+2 ends events tail, without its event.
    await callFixture('set', [10n]);
    expect(await tail.exit).toBe(0);
    const heights = tail.lines.map(
      (line) => (JSON.parse(line) as { events: Record<string, string[]> }).events['tx.height'],
    );
    expect(heights).toEqual([[String(head + 1n)]]);
  });
});

describe('a stream whose daemon stops', () => {
  it('fails with exit 1 saying the daemon closed the connection', async () => {
    const daemon = await startTestDaemon(['--block-time', '0']);
    const tail = startStreaming(['events', 'tail', '--datadir', daemon.dataDir]);
    await waitFor(() => tail.stderr().includes('subscribed to'), 20_000, 'the subscription');
    await daemon.stop();
    expect(await tail.exit).toBe(1);
    expect(tail.stderr()).toContain('the daemon closed the connection');
  });

  it('ends JSON Lines with the error as one more line', async () => {
    const daemon = await startTestDaemon(['--block-time', '0']);
    const streams = [
      startStreaming(['events', 'tail', '--json', '--datadir', daemon.dataDir]),
      startStreaming(['logs', 'watch', '--json', '--datadir', daemon.dataDir]),
    ];
    try {
      for (const stream of streams) {
        await waitFor(
          () => /subscribed to|watching logs/.test(stream.stderr()),
          20_000,
          'a stream',
        );
      }
      await daemon.stop();
      for (const stream of streams) {
        expect(await stream.exit).toBe(1);
        expect(stream.lines.map((line) => JSON.parse(line) as unknown)).toEqual([
          { error: { message: expect.stringContaining('closed the connection'), exit: 1 } },
        ]);
      }
    } finally {
      await Promise.all(streams.map((stream) => stream.interrupt()));
      await daemon.stop();
    }
  });
});

/** A log of block `block` at `index`, as the node would send it. */
function fakeLog(block: number, index: number): RpcLog {
  const hex = (value: number) => `0x${value.toString(16)}` as const;
  return {
    address: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
    topics: [],
    data: '0x',
    blockNumber: hex(block),
    blockHash: `0x${String(block).padStart(64, '0')}`,
    transactionHash: `0x${'ab'.repeat(32)}`,
    transactionIndex: '0x0',
    logIndex: hex(index),
    removed: false,
  };
}

describe('watchLogs: replay and subscription without gaps or repeats', () => {
  it('flushes the buffered logs after the replay, skipping those it replayed', async () => {
    let notify: (notification: Notification) => void = () => undefined;
    const push = (log: RpcLog, subscription = '0xs1') =>
      notify({ method: 'eth_subscription', params: { subscription, result: log } });
    const ws = {
      closed: undefined,
      onNotification: (listener: (notification: Notification) => void) => {
        notify = listener;
        return () => {
          notify = () => undefined;
        };
      },
      call: async <T>(method: string): Promise<T> => {
        // Before its answer is handled, the subscription already delivers block 3.
        if (method === 'eth_subscribe') push(fakeLog(3, 0));
        return (method === 'eth_subscribe' ? '0xs1' : true) as T;
      },
    };
    const getLogsCalls: unknown[] = [];
    const rpc = {
      call: async <T>(method: string, params: unknown[] = []): Promise<T> => {
        if (method === 'eth_blockNumber') {
          // Block 4 is committed while the head is read: the head says 4, and the
          // subscription delivers it too (plus a log of another subscription).
          push(fakeLog(4, 0));
          push(fakeLog(9, 9), '0xother');
          return '0x4' as T;
        }
        getLogsCalls.push(params[0]);
        // Block 5 arrives during the replay; it is after the head, so only the buffer has it.
        push(fakeLog(5, 0));
        return [fakeLog(1, 0), fakeLog(3, 0), fakeLog(4, 0)] as T;
      },
    };
    const seen: string[] = [];
    const watch = await watchLogs({
      ws,
      rpc,
      criteria: { address: ['0x5FbDB2315678afecb367f032d93F642f64180aa3'] },
      fromBlock: 0n,
      onLog: (log) => seen.push(`${BigInt(log.blockNumber)}:${BigInt(log.logIndex)}`),
    });
    push(fakeLog(6, 0));
    push(fakeLog(6, 1));
    await watch.stop();
    push(fakeLog(7, 0));

    expect(getLogsCalls).toEqual([
      {
        address: ['0x5FbDB2315678afecb367f032d93F642f64180aa3'],
        fromBlock: '0x0',
        toBlock: '0x4',
      },
    ]);
    expect(seen).toEqual(['1:0', '3:0', '4:0', '5:0', '6:0', '6:1']);
  });
});
