import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { isDataDirLocked } from '../../src/shared/datadir-lock.js';
import { spawn } from 'node:child_process';
import { CLI_ENTRY, runCli, runCliJson, runCliJsonWithCode } from '../helpers/cli.js';
import { isAlive, processesMentioning, waitFor } from '../helpers/processes.js';
import {
  LOOPBACK_FLAGS,
  makeDataDir,
  startTestDaemon,
  type TestDaemon,
} from '../helpers/test-daemon.js';

interface StatusJson {
  running: boolean;
  pid?: number;
  uptimeSeconds?: number;
  version?: string;
  endpoints?: Record<string, string>;
}

describe('daemon lifecycle', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon();
  });
  afterAll(() => daemon?.stop());

  it('reports pid, uptime, endpoints and version in status --json, exit 0 when healthy', async () => {
    const { code, value: status } = await runCliJsonWithCode<StatusJson>([
      'daemon',
      'status',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(code).toBe(0);
    expect(status).toMatchObject({ running: true, pid: daemon.pid, version: '0.1.0' });
    expect(status.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(status.endpoints).toEqual(daemon.endpoints);
  });

  it('refuses a second daemon on the same data directory and leaves the first one serving', async () => {
    const second = await runCli([
      'daemon',
      'start',
      '--datadir',
      daemon.dataDir,
      ...LOOPBACK_FLAGS,
    ]);
    expect(second.code).not.toBe(0);
    expect(second.message).toContain(`already running`);
    expect(second.message).toContain(String(daemon.pid));

    const foreground = await runCli([
      'daemon',
      'start',
      '--foreground',
      '--datadir',
      daemon.dataDir,
      ...LOOPBACK_FLAGS,
    ]);
    expect(foreground.code).not.toBe(0);
    expect(foreground.message).toContain(
      `data directory is in use by another daemon (pid ${daemon.pid})`,
    );

    expect(await daemon.rpc.call('net_version')).toBe('9000');
  });

  it.each([
    ['--json-rpc.address', () => daemon.endpoints.http, ''],
    ['--json-rpc.ws-address', () => daemon.endpoints.ws, ''],
    ['--rpc.laddr', () => daemon.endpoints.consensusWs!, 'tcp://'],
  ])(
    'fails a start whose %s port is taken, names the flag and leaves no process or lock behind',
    async (flag, endpoint, scheme) => {
      const dataDir = makeDataDir();
      try {
        const port = new URL(endpoint()).port;
        const flags = LOOPBACK_FLAGS.map((value, index) =>
          LOOPBACK_FLAGS[index - 1] === flag ? `${scheme}127.0.0.1:${port}` : value,
        );
        const result = await runCli(['daemon', 'start', '--datadir', dataDir, ...flags]);
        expect(result.code).toBe(1);
        expect(result.message).toContain(
          `cannot listen on 127.0.0.1:${port} (${flag}): address already in use`,
        );
        expect(result.message).not.toMatch(/\bat .*\.js:\d+/);
        await waitFor(
          () => processesMentioning(dataDir).length === 0,
          5_000,
          'the failed daemon to exit',
        );
        expect(isDataDirLocked(join(dataDir, 'daemon.lock'))).toBe(false);
        expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('fails a start with a bad flag value as a usage error naming the flag', async () => {
    const dataDir = makeDataDir();
    try {
      const result = await runCli([
        'daemon',
        'start',
        '--datadir',
        dataDir,
        '--block-time',
        'soon',
      ]);
      expect(result.code).toBe(2);
      expect(result.message).toContain('invalid value for --block-time');
      expect(processesMentioning(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('fails a start whose data directory cannot be created', async () => {
    const parent = makeDataDir();
    try {
      writeFileSync(join(parent, 'file'), 'not a directory');
      const result = await runCli([
        'daemon',
        'start',
        '--datadir',
        join(parent, 'file', 'node'),
        ...LOOPBACK_FLAGS,
      ]);
      expect(result.code).toBe(1);
      expect(result.message).toContain('cannot create data directory');
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('prints its log with daemon logs', async () => {
    const text = await runCli(['daemon', 'logs', '--datadir', daemon.dataDir]);
    expect(text.stdout).toMatch(/^\S+ INFO node started http=http:\/\/127\.0\.0\.1:\d+ /m);
    const json = await runCli(['daemon', 'logs', '--json', '--datadir', daemon.dataDir]);
    const records = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(records).toContainEqual(expect.objectContaining({ level: 'info', msg: 'node started' }));
  });
});

describe('daemon configuration precedence', () => {
  it('takes a flag over an environment variable over the config file over the default', async () => {
    const dataDir = makeDataDir();
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ 'chain-id': 777, 'evm.rpc.api': 'net,web3' }),
    );
    const notServed = { code: -32601 };
    const fromFile = await startTestDaemon([], dataDir);
    try {
      expect(await fromFile.rpc.call('net_version')).toBe('777');
      await expect(fromFile.rpc.call('eth_blockNumber')).rejects.toMatchObject(notServed);
    } finally {
      await runCli(['daemon', 'stop', '--datadir', dataDir]);
    }
    const env = { NODE_CLI_EVM_RPC_API: 'eth,net' };
    const fromEnv = await runCliJson<{ endpoints: { http: string } }>(
      ['daemon', 'start', '--datadir', dataDir, ...LOOPBACK_FLAGS],
      env,
    );
    const envClient = new HttpRpcClient(fromEnv.endpoints.http);
    try {
      expect(await envClient.call('eth_chainId')).toBe('0x309');
      await expect(envClient.call('web3_clientVersion')).rejects.toMatchObject(notServed);
    } finally {
      await envClient.close();
      await runCli(['daemon', 'stop', '--datadir', dataDir]);
    }
    const fromFlag = await startTestDaemon(['--evm.rpc.api', 'web3'], dataDir);
    try {
      expect(await fromFlag.rpc.call('web3_sha3', ['0x'])).toMatch(/^0x/);
      await expect(fromFlag.rpc.call('net_version')).rejects.toMatchObject(notServed);
    } finally {
      await fromFlag.stop();
    }
  });

  it('refuses to start a data directory with a different chain id than it was created with', async () => {
    const daemon = await startTestDaemon(['--chain-id', '31337']);
    await runCli(['daemon', 'stop', '--datadir', daemon.dataDir]);
    const result = await runCli([
      'daemon',
      'start',
      '--datadir',
      daemon.dataDir,
      ...LOOPBACK_FLAGS,
      '--chain-id',
      '1',
    ]);
    expect(result.code).toBe(1);
    expect(result.message).toContain('the data directory holds another chain');
    await daemon.stop();
  });
});

describe('daemon stop', () => {
  it('stops gracefully: no process left, status says stopped, the lock is released', async () => {
    const daemon = await startTestDaemon();
    const stop = await runCliJson<{ stopped: boolean; how: string }>([
      'daemon',
      'stop',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(stop).toMatchObject({ stopped: true, how: 'graceful' });
    expect(isAlive(daemon.pid)).toBe(false);
    expect(processesMentioning(daemon.dataDir)).toEqual([]);
    const status = await runCliJsonWithCode<StatusJson>([
      'daemon',
      'status',
      '--datadir',
      daemon.dataDir,
    ]);
    // systemctl's code for a unit that is not running.
    expect(status).toMatchObject({ code: 3, value: { running: false } });
    expect(isDataDirLocked(join(daemon.dataDir, 'daemon.lock'))).toBe(false);
    const again = await runCliJson<{ stopped: boolean }>([
      'daemon',
      'stop',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(again.stopped).toBe(false);
    await daemon.stop();
  });

  it('follows the log with daemon logs -f until Ctrl-C', async () => {
    // No block for an hour, so the last two lines are the start's: `node started` and, written
    // just after it, `signature recovery` (which may not be there yet).
    const daemon = await startTestDaemon(['--block-time', '1h']);
    const follower = spawn(process.execPath, [
      CLI_ENTRY,
      'daemon',
      'logs',
      '-f',
      '-n',
      '2',
      '--datadir',
      daemon.dataDir,
    ]);
    const exited = new Promise<number | null>((resolve) =>
      follower.once('exit', (code) => resolve(code)),
    );
    let output = '';
    follower.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor(() => output.includes('node started'), 15_000, 'the last log line');
      await runCli(['daemon', 'stop', '--datadir', daemon.dataDir]);
      await waitFor(
        () => output.includes('INFO stopped'),
        15_000,
        'the stop to appear in the followed log',
      );
      follower.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      // A failed wait must not leave the follower or a daemon with an hour's block time behind.
      follower.kill('SIGKILL');
      await daemon.stop();
    }
  });

  it('restarts on a data directory whose daemon was killed with SIGKILL (stale lock)', async () => {
    const first = await startTestDaemon();
    process.kill(first.pid, 'SIGKILL');
    await waitFor(() => !isAlive(first.pid), 5_000, 'the killed daemon to vanish');
    const second = await startTestDaemon([], first.dataDir);
    try {
      expect(second.pid).not.toBe(first.pid);
      expect(await second.rpc.call('net_listening')).toBe(true);
    } finally {
      await second.stop();
    }
  });
});
