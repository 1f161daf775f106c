/**
 * The daemon's log against a real daemon (issue #19 item 3, issue #16): the level changes at
 * run time through debug_verbosity and `node-cli daemon log-level`; blocks, admissions, token
 * refusals and level changes are logged; the file rotates by size and keeps at most the
 * configured files under a burst, while `daemon logs -f` follows it across the rotations; and
 * no secret the node handles (token, passphrases, keys, key files) reaches any log file.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Wallet, hexlify, randomBytes } from 'ethers';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import type { LogRecord } from '../../src/shared/log-line.js';
import { CLI_ENTRY, runCli } from '../helpers/cli.js';
import { daemonLogFiles, daemonLogRecords } from '../helpers/daemon-log.js';
import { devWallet, signDynamicFeeTx, waitForReceipt } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import {
  LOOPBACK_FLAGS,
  makeDataDir,
  startTestDaemon,
  type TestDaemon,
} from '../helpers/test-daemon.js';

const head = async (daemon: TestDaemon) =>
  Number(BigInt(await daemon.rpc.call<string>('eth_blockNumber')));

/** Waits until the log holds a record matching `fields`; returns it. */
async function logged(daemon: TestDaemon, fields: Record<string, unknown>): Promise<LogRecord> {
  let found: LogRecord | undefined;
  await waitFor(
    () => {
      found = daemonLogRecords(daemon.dataDir).find((record) =>
        Object.entries(fields).every(([key, value]) => record[key] === value),
      );
      return found !== undefined;
    },
    60_000,
    `a log record ${JSON.stringify(fields)}`,
  );
  return found as LogRecord;
}

describe('daemon log levels and what is logged', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '200ms']);
  }, 120_000);
  afterAll(() => daemon.stop());

  it('logs the configuration and the signature recovery in use at start, and one line per block', async () => {
    const [starting] = daemonLogRecords(daemon.dataDir);
    expect(starting).toMatchObject({
      level: 'info',
      msg: 'starting',
      dataDir: daemon.dataDir,
      blockTime: '200ms',
      settings: { 'block-time': '200ms (flag)' },
    });
    // The native binding is installed here, so the WebAssembly fallback must not be in use.
    expect(await logged(daemon, { msg: 'signature recovery' })).toMatchObject({
      level: 'info',
      backend: 'libsecp256k1',
    });
    const block = await logged(daemon, { msg: 'block committed', height: 2 });
    expect(block).toMatchObject({
      level: 'info',
      hash: expect.stringMatching(/^0x[0-9a-f]{12}$/),
      txs: 0,
      failed: 0,
      gasUsed: '0',
      tookMs: expect.any(Number),
    });
    const full = await daemon.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x2', false]);
    expect(full.hash.startsWith(block.hash as string)).toBe(true);
  });

  it('changes the level at run time with debug_verbosity, for callers with the token', async () => {
    await expect(daemon.rpc.call('debug_verbosity', [4])).rejects.toMatchObject({ code: -32001 });
    await logged(daemon, { msg: 'call refused: no valid token', method: 'debug_verbosity' });
    await expect(daemon.authedRpc.call('debug_verbosity', ['loud'])).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('level'),
    });

    await daemon.rpc.call('web3_clientVersion');
    expect(await daemon.authedRpc.call('debug_verbosity', [4])).toBe('debug');
    expect(await daemon.authedRpc.call('debug_verbosity')).toBe('debug');
    await logged(daemon, { level: 'warn', msg: 'log level changed', from: 'info', to: 'debug' });
    await daemon.rpc.call('net_version');
    await logged(daemon, { level: 'debug', msg: 'call', method: 'net_version' });
    // Calls before the change were not logged.
    const calls = daemonLogRecords(daemon.dataDir).filter((record) => record.msg === 'call');
    expect(calls.some((record) => record.method === 'web3_clientVersion')).toBe(false);
  });

  it('logs an admitted transaction at debug and the block that holds it', async () => {
    const raw = await signDynamicFeeTx(devWallet(1), {
      nonce: 0,
      to: devWallet(2).address,
      value: 1n,
    });
    const hash = await daemon.rpc.call<string>('eth_sendRawTransaction', [raw]);
    const receipt = await waitForReceipt(daemon.rpc, hash, 20_000);
    await logged(daemon, {
      level: 'debug',
      msg: 'transaction accepted',
      hash,
      from: devWallet(1).address.toLowerCase(),
    });
    await expect(daemon.rpc.call('eth_sendRawTransaction', [raw])).rejects.toThrow();
    await logged(daemon, { msg: 'transaction refused', hash });
    await logged(daemon, {
      msg: 'block committed',
      height: Number(BigInt(receipt.blockNumber as string)),
      txs: 1,
      gasUsed: '21000',
    });
  });

  it('changes the level with daemon log-level, and filters daemon logs --level', async () => {
    const set = await runCli(['daemon', 'log-level', 'warn', '--datadir', daemon.dataDir]);
    expect(set.stdout.trim()).toBe('log level set to warn');
    const changedAt = await head(daemon);
    const shown = await runCli(['daemon', 'log-level', '--datadir', daemon.dataDir, '--json']);
    expect(JSON.parse(shown.stdout)).toEqual({ level: 'warn' });
    const bad = await runCli(['daemon', 'log-level', 'loud', '--datadir', daemon.dataDir]);
    expect(bad.code).toBe(2);
    expect(bad.message).toContain('unknown log level "loud"');

    await waitFor(async () => (await head(daemon)) >= changedAt + 3, 20_000, 'three blocks');
    const blocks = daemonLogRecords(daemon.dataDir).filter((r) => r.msg === 'block committed');
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks.filter((record) => (record.height as number) > changedAt)).toEqual([]);

    const warnings = await runCli([
      'daemon',
      'logs',
      '--level',
      'warn',
      '-n',
      '1000',
      '--datadir',
      daemon.dataDir,
    ]);
    const lines = warnings.stdout.trim().split('\n');
    expect(lines.every((line) => /^\S+ (WARN|ERROR) /.test(line))).toBe(true);
    expect(lines).toContainEqual(
      expect.stringMatching(/ WARN log level changed from=debug to=warn$/),
    );
  }, 180_000);
});

describe('log rotation', () => {
  const MAX_SIZE = 64 * 1024;
  const MAX_FILES = 3;
  const BATCHES = 80;
  const PER_BATCH = 50;
  let daemon: TestDaemon;
  let follower: ChildProcessWithoutNullStreams | undefined;

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--block-time',
      '200ms',
      '--log-level',
      'debug',
      '--log.max-size',
      '64KiB',
      '--log.max-files',
      String(MAX_FILES),
    ]);
  });
  afterAll(async () => {
    follower?.kill('SIGINT');
    await daemon.stop();
  });

  it('keeps at most the configured files and size under a burst, and -f follows across rotations', async () => {
    follower = spawn(process.execPath, [
      CLI_ENTRY,
      'daemon',
      'logs',
      '-f',
      '--json',
      '-n',
      '0',
      '--datadir',
      daemon.dataDir,
    ]);
    let pending = '';
    const seen: LogRecord[] = [];
    follower.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) seen.push(JSON.parse(line) as LogRecord);
    });
    await waitFor(() => seen.some((r) => r.msg === 'block committed'), 20_000, 'the follower');
    const burstCalls = () =>
      seen.filter((r) => r.msg === 'call' && r.method === 'web3_sha3').length;

    for (let batch = 0; batch < BATCHES; batch++) {
      const calls = Array.from({ length: PER_BATCH }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'web3_sha3',
        params: [hexlify(randomBytes(8))],
      }));
      const response = await fetch(daemon.endpoints.http, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(calls),
      });
      expect(((await response.json()) as unknown[]).length).toBe(PER_BATCH);
      // The follower may lag a little (three batches are about half a file), never the whole
      // retention: lines it had not read when their file was deleted would be lost.
      await waitFor(
        () => burstCalls() >= (batch - 3) * PER_BATCH,
        20_000,
        'the follower to keep up',
      );
    }
    await waitFor(() => burstCalls() >= BATCHES * PER_BATCH, 20_000, 'every burst line');
    expect(burstCalls()).toBe(BATCHES * PER_BATCH);

    const files = daemonLogFiles(daemon.dataDir).map((file) => file.split('/').at(-1));
    expect(files).toEqual(['daemon.log.2', 'daemon.log.1', 'daemon.log']);
    for (const file of daemonLogFiles(daemon.dataDir)) {
      expect(statSync(file).size).toBeLessThanOrEqual(MAX_SIZE);
      // Whole JSON lines only: no line is split across files.
      for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
        expect(() => JSON.parse(line)).not.toThrow();
      }
    }
  }, 300_000);
});

describe('secrets in the log', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'node-cli-secrets-'));
  const nodeKeyPassword = `node-key-password-${hexlify(randomBytes(6))}`;
  const passphrase = `good-passphrase-${hexlify(randomBytes(6))}`;
  const wrongPassphrase = `wrong-passphrase-${hexlify(randomBytes(6))}`;
  const importPassphrase = `import-passphrase-${hexlify(randomBytes(6))}`;
  const wrongToken = `wrong-token-${hexlify(randomBytes(6))}`;
  const imported = Wallet.createRandom();
  let daemon: TestDaemon;

  afterAll(async () => {
    await daemon?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('never writes the token, a passphrase, a private key or a key file to any log file', async () => {
    const passwordFile = join(scratch, 'node-key-password');
    writeFileSync(passwordFile, `${nodeKeyPassword}\n`, { mode: 0o600 });
    daemon = await startTestDaemon([
      '--log-level',
      'trace',
      '--keystore.light-kdf',
      '--node-key.password-file',
      passwordFile,
    ]);
    const { authedRpc, dataDir } = daemon;

    const created = await authedRpc.call<string>('personal_newAccount', [passphrase]);
    await authedRpc.call('personal_unlockAccount', [created, passphrase, 60]);
    await expect(
      authedRpc.call('personal_unlockAccount', [created, wrongPassphrase, 60]),
    ).rejects.toMatchObject({ code: -32000 });
    await authedRpc.call('personal_lockAccount', [created]);
    const importedAddress = await authedRpc.call<string>('personal_importRawKey', [
      imported.privateKey.slice(2),
      importPassphrase,
    ]);
    await authedRpc.call('personal_sign', ['0xdeadbeef', importedAddress, importPassphrase]);
    const unlock = await runCli([
      'account',
      'unlock',
      importedAddress,
      '--password-file',
      passwordFileWith(importPassphrase),
      '--datadir',
      dataDir,
    ]);
    expect(unlock.code).toBe(0);

    const wrong = new HttpRpcClient(daemon.endpoints.http, { token: wrongToken });
    await expect(wrong.call('personal_listAccounts')).rejects.toMatchObject({ code: -32001 });
    await wrong.close();
    const rest = await fetch(`${daemon.endpoints.rest}/contracts/identity`, {
      headers: { authorization: `Bearer ${wrongToken}` },
    });
    expect(rest.status).toBe(401);

    // What happened is in the log, by address.
    await logged(daemon, { level: 'info', msg: 'account unlocked', address: created });
    await logged(daemon, { level: 'warn', msg: 'account unlock failed', address: created });
    await logged(daemon, { msg: 'account locked', address: created });
    await logged(daemon, { msg: 'account key stored', address: importedAddress });
    await logged(daemon, { msg: 'REST request refused: no valid token' });
    await logged(daemon, { msg: 'call refused: no valid token', method: 'personal_listAccounts' });

    // Key files: the node key's (encrypted under the password file's secret) and the accounts'.
    const ciphertextOf = (file: string) =>
      (JSON.parse(readFileSync(file, 'utf8')) as { crypto: { ciphertext: string } }).crypto
        .ciphertext;
    const keyFiles = [
      ciphertextOf(join(dataDir, 'node_key.json')),
      ...readdirSync(join(dataDir, 'keystore')).map((name) =>
        ciphertextOf(join(dataDir, 'keystore', name)),
      ),
    ];
    expect(keyFiles.length).toBe(3);
    const secrets = [
      daemon.token,
      wrongToken,
      nodeKeyPassword,
      passphrase,
      wrongPassphrase,
      importPassphrase,
      imported.privateKey.slice(2),
      ...keyFiles,
    ];
    await runCli(['daemon', 'stop', '--datadir', dataDir]);
    const logFiles = readdirSync(join(dataDir, 'logs')).map((name) => join(dataDir, 'logs', name));
    expect(logFiles.length).toBeGreaterThanOrEqual(2);
    for (const file of logFiles) {
      const text = readFileSync(file, 'utf8').toLowerCase();
      for (const secret of secrets)
        expect({ file, found: text.includes(secret.toLowerCase()) }).toEqual({
          file,
          found: false,
        });
    }
  }, 300_000);

  function passwordFileWith(secret: string): string {
    const file = join(scratch, `password-${hexlify(randomBytes(4))}`);
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    return file;
  }
});

describe('daemon start --foreground', () => {
  /** Runs a foreground daemon until its `stopped` line; returns its stdout lines. */
  async function foregroundOutput(flags: readonly string[]): Promise<string[]> {
    const dataDir = makeDataDir();
    const daemon = spawn(process.execPath, [
      CLI_ENTRY,
      'daemon',
      'start',
      '--foreground',
      '--datadir',
      dataDir,
      ...LOOPBACK_FLAGS,
      '--block-time',
      '200ms',
      ...flags,
    ]);
    let output = '';
    daemon.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => daemon.once('exit', resolve));
    try {
      await waitFor(() => /block committed height=2 |"height":2,/.test(output), 60_000, 'block 2');
      daemon.kill('SIGINT');
      expect(await exited).toBe(0);
      return output.trim().split('\n');
    } finally {
      daemon.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it('prints the log for people on stdout, or JSON lines with --log.format json', async () => {
    const text = await foregroundOutput([]);
    expect(text).toContainEqual(
      expect.stringMatching(/^\S+Z INFO block committed height=1 hash=0x[0-9a-f]{12} txs=0 /),
    );
    expect(text).toContainEqual(
      expect.stringMatching(/^\S+Z INFO chain opened chainId=9000 genesis="embedded dev chain" /),
    );
    expect(text.at(-1)).toMatch(/^\S+Z INFO stopped$/);

    const json = (await foregroundOutput(['--log.format', 'json'])).map(
      (line) => JSON.parse(line) as LogRecord,
    );
    expect(json).toContainEqual(expect.objectContaining({ msg: 'block committed', height: 1 }));
    expect(json.at(-1)).toMatchObject({ level: 'info', msg: 'stopped' });
  }, 180_000);
});
