/**
 * Errors a person can act on, through the built binary: usage errors exit 2 in one line with a
 * "did you mean" where one is close, failures exit 1 without stack traces, `--verbose` shows
 * the cause chain. No daemon is needed: these fail before or at the connection.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const NOTHING_LISTENS = 'http://127.0.0.1:9';

describe('CLI errors', () => {
  it('suggests the command meant for an unknown one, exit 2', async () => {
    const result = await runCli(['blok', 'get']);
    expect(result.code).toBe(2);
    expect(result.message).toContain(
      '"blok get" is not a node-cli command; did you mean "block get"?',
    );
    const far = await runCli(['deploy']);
    expect(far.code).toBe(2);
    expect(far.message).toContain(
      '"deploy" is not a node-cli command (node-cli --help lists them)',
    );
  });

  it('answers an unknown flag in one line, with the closest flag, exit 2', async () => {
    const result = await runCli(['block', 'get', '--ful']);
    expect(result.code).toBe(2);
    expect(result.message).toContain('unknown flag --ful; did you mean --full?');
    expect(result.stderr).not.toContain('USAGE');
    expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(3);
    const noJson = await runCli(['console', '--json']);
    expect(noJson.code).toBe(2);
    expect(noJson.message).toContain('unknown flag --json (see node-cli console --help)');
    const json = await runCli(['block', 'get', '--bogus', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { message: 'unknown flag --bogus (see node-cli block get --help)', exit: 2 },
    });
  });

  it('names a bad value and its expected form, exit 2', async () => {
    const result = await runCli(['tx', 'get', '0x1234', '--rpc-url', NOTHING_LISTENS]);
    expect(result.code).toBe(2);
    expect(result.message).toContain('invalid transaction hash "0x1234"');
  });

  it('refuses malformed ids, names and addresses before any request, exit 2', async () => {
    const rest = ['--rest-url', `${NOTHING_LISTENS}/v1/api`];
    const file = join(tmpdir(), 'node-cli-absent.json');
    const badChecksum = '0x70997970C51812dc3A010C7d01b50e0d17dc79c8';
    const cases: Array<[string[], string]> = [
      [['files', 'show', '1234'], 'invalid file id "1234": expected 64 lower-case hex digits'],
      [['files', 'get', 'ABCDEF'], 'invalid file id "ABCDEF"'],
      [['chunk', 'show', '1234'], 'invalid chunk id "1234"'],
      [
        ['contract', 'add', '9bad', badChecksum.toLowerCase(), file],
        'invalid contract name "9bad"',
      ],
      [['contract', 'add', 'Tok', '0x12', file], 'invalid address "0x12"'],
      [['crypto', 'verify', '0x12', file], 'invalid address "0x12"'],
      [['crypto', 'verify', 'X!', file], 'invalid owner "X!"'],
      [['identity', 'lookup', badChecksum], 'checksum (EIP-55) does not match'],
      [['contract', 'call', '0x12', 'name'], 'invalid address "0x12"'],
      [['contract', 'send', 'not a name', 'f'], 'invalid contract name "not a name"'],
      [['contract', 'abi', badChecksum], 'checksum (EIP-55) does not match'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli([...args, ...rest]);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.message).toContain(message);
    }
  });

  it("answers a flag's malformed value in one line, with --json too, exit 2", async () => {
    const result = await runCli(['events', 'tail', '--count', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/Parsing|See more help/);
    expect(result.message).toContain(
      '--count: Expected an integer but received: x (see node-cli events tail --help)',
    );
    const own = await runCli(['block', 'get', '--rpc-url', 'nowhere', '--json']);
    expect(own.code).toBe(2);
    expect(JSON.parse(own.stdout)).toEqual({
      error: {
        message:
          'invalid --rpc-url "nowhere": expected a http:// or https:// URL (see node-cli block get --help)',
        exit: 2,
      },
    });
  });

  it('says a non-JSON-RPC answer had an empty body', async () => {
    const server = createHttpServer((_request, response) => response.writeHead(401).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}`;
      const result = await runCli(['rpc', 'eth_blockNumber', '--rpc-url', url]);
      expect(result.code).toBe(1);
      expect(result.message).toContain(`unexpected HTTP 401 answer from ${url} with an empty body`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('imports a key under an empty passphrase only with --allow-empty-passphrase', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-empty-passphrase-'));
    try {
      const key = join(dir, 'key.txt');
      const empty = join(dir, 'empty.txt');
      writeFileSync(key, `0x${'11'.repeat(32)}\n`);
      writeFileSync(empty, '');
      const args = [
        'account',
        'import',
        key,
        '--password-file',
        empty,
        '--rpc-url',
        NOTHING_LISTENS,
      ];
      const refused = await runCli(args);
      expect(refused.code).toBe(2);
      expect(refused.message).toContain('the passphrase is empty');
      expect(refused.message).toContain('--allow-empty-passphrase');
      const allowed = await runCli([...args, '--allow-empty-passphrase']);
      expect(allowed.message).toContain(`cannot reach the node at ${NOTHING_LISTENS}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an empty --datadir, which would be the working directory, exit 2', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'node-cli-empty-datadir-'));
    try {
      const result = await runCli(['daemon', 'start', '--datadir', ''], {}, undefined, cwd);
      if (result.code === 0) await runCli(['daemon', 'stop', '--datadir', cwd]);
      expect(result.code).toBe(2);
      expect(result.stderr).not.toMatch(/Parsing|See more help/);
      expect(result.message).toContain('--datadir is empty');
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('refuses a data directory the file system cannot make, without hanging, exit 1', async () => {
    const result = await runCli(['daemon', 'start', '--datadir', '/proc/node-cli-nope']);
    expect(result.code).toBe(1);
    expect(result.message).toContain('cannot create data directory /proc/node-cli-nope: ENOENT');
  });

  it('refuses a JSON input or token file that never ends (/dev/zero) instead of reading on', async () => {
    const rest = ['--rest-url', `${NOTHING_LISTENS}/v1/api`];
    const file = await runCli(['crypto', 'sign', '/dev/zero', ...rest]);
    expect(file.code).toBe(2);
    expect(file.message).toContain('/dev/zero holds more than 64 MiB: not a JSON document to send');
    const abi = await runCli([
      'contract',
      'add',
      'Token',
      '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      '/dev/zero',
      ...rest,
    ]);
    expect(abi.code).toBe(2);
    expect(abi.message).toContain('/dev/zero holds more than 64 MiB');
    const events = await runCli(['logs', 'watch', '--abi', '/dev/zero', ...rest]);
    expect(events.code).toBe(2);
    expect(events.message).toContain('cannot read ABI file /dev/zero: longer than 64 MiB');
    const token = await runCli(['node', 'status', '--token-file', '/dev/zero', ...rest]);
    expect(token.code).toBe(1);
    expect(token.message).toContain('cannot read --token-file /dev/zero: longer than 64 KiB');
    const keyFile = await runCli(['account', 'import', '/dev/zero', ...rest]);
    expect(keyFile.code).toBe(1);
    expect(keyFile.message).toContain('cannot read /dev/zero: longer than 1 MiB');
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-key-'));
    try {
      const key = join(dir, 'key.txt');
      writeFileSync(key, `${'ab'.repeat(32)}\n`);
      const password = await runCli([
        'account',
        'import',
        key,
        '--password-file',
        '/dev/zero',
        ...rest,
      ]);
      expect(password.code).toBe(1);
      expect(password.message).toContain(
        'cannot read --password-file /dev/zero: longer than 64 KiB',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('reports a failure without a stack trace, and the cause chain with --verbose', async () => {
    const plain = await runCli(['rpc', 'eth_blockNumber', '--rpc-url', NOTHING_LISTENS]);
    expect(plain.code).toBe(1);
    expect(plain.message).toContain(`cannot reach the node at ${NOTHING_LISTENS} (ECONNREFUSED)`);
    expect(plain.stderr).not.toMatch(/^\s+at /m);
    const verbose = await runCli([
      'rpc',
      'eth_blockNumber',
      '--rpc-url',
      NOTHING_LISTENS,
      '--verbose',
    ]);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/^\s+at /m);
    expect(verbose.stderr).toContain('Caused by: Error: connect ECONNREFUSED');
  });

  it('gives up on a node that takes the connection and never answers, exit 1', async () => {
    const silent = await listenSilently();
    try {
      const url = `http://127.0.0.1:${silent.port}`;
      const started = Date.now();
      const byFlag = await runCli(['block', 'get', '--rpc-url', url, '--request-timeout', '1s']);
      expect(byFlag.code).toBe(1);
      expect(byFlag.message).toContain(`no answer from ${url}/ within 1 s`);
      expect(Date.now() - started).toBeLessThan(20_000);
      const byEnv = await runCli(['node', 'status', '--rest-url', `${url}/v1/api`, '--json'], {
        NODE_CLI_REQUEST_TIMEOUT: '500ms',
      });
      expect(byEnv.code).toBe(1);
      expect(JSON.parse(byEnv.stdout)).toMatchObject({
        error: { message: expect.stringContaining(`no answer from ${url}/v1/api within 0.5 s`) },
      });
      // A stream waits for nothing once open, but its opening handshake is limited the same way.
      const ws = `ws://127.0.0.1:${silent.port}/websocket`;
      const stream = await runCli([
        'events',
        'tail',
        '--consensus-url',
        ws,
        '--request-timeout',
        '1s',
      ]);
      expect(stream.code).toBe(1);
      expect(stream.message).toContain(`no answer from ${ws} within 1 s`);
      const malformed = await runCli(['block', 'get', '--rpc-url', url, '--request-timeout', 'x']);
      expect(malformed.code).toBe(2);
      expect(malformed.message).toContain('invalid --request-timeout');
    } finally {
      await silent.close();
    }
  });
});

/** A server on a free port that accepts connections and never writes a byte. */
async function listenSilently(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
