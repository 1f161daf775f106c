/**
 * The CLI reaching nodes by URL (`--rpc-url` and friends, or their environment variables) from a
 * working directory and data directory that know nothing of them: a second daemon, with and
 * without its token, and anvil for the eth commands.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, runCliJson } from '../helpers/cli.js';
import { waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ANVIL = fileURLToPath(new URL('../../node_modules/.bin/anvil', import.meta.url));
const DEV_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('nodes by URL', () => {
  let daemon: TestDaemon;
  /** An empty working directory and data directory: nothing to discover there. */
  let elsewhere: string;
  let anvil: ChildProcess;
  let anvilUrl: string;
  const env = (): NodeJS.ProcessEnv => ({ XDG_DATA_HOME: elsewhere, HOME: elsewhere });
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runCli(args, { ...env(), ...extraEnv }, undefined, elsewhere);

  beforeAll(async () => {
    elsewhere = makeDataDir();
    const port = await freePort();
    anvilUrl = `http://127.0.0.1:${port}`;
    anvil = spawn(ANVIL, ['--host', '127.0.0.1', '--port', String(port), '--silent'], {
      stdio: 'ignore',
    });
    daemon = await startTestDaemon();
    await waitFor(
      async () => (await cli(['rpc', 'eth_chainId', '--rpc-url', anvilUrl])).code === 0,
      30_000,
      'anvil to answer',
    );
  });

  afterAll(async () => {
    anvil?.kill('SIGTERM');
    await daemon?.stop();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('finds no daemon without a URL', async () => {
    const result = await cli(['rpc', 'eth_blockNumber']);
    expect(result.code).toBe(1);
    expect(result.message).toContain('no daemon is running for data directory');
    expect(result.message).toContain('--rpc-url');
  });

  it('reads the chain of a daemon given by --rpc-url or NODE_CLI_RPC_URL', async () => {
    const byFlag = await cli(['rpc', 'eth_chainId', '--rpc-url', daemon.endpoints.http]);
    expect(byFlag).toMatchObject({ code: 0, stdout: '0x2328\n' });
    const byEnv = await cli(['block', 'get', '0', '--json'], {
      NODE_CLI_RPC_URL: daemon.endpoints.http,
    });
    expect(byEnv.code).toBe(0);
    expect(JSON.parse(byEnv.stdout)).toMatchObject({ number: '0x0' });
  });

  it('calls private methods only with the token, from --token-file or --token', async () => {
    const url = ['--rpc-url', daemon.endpoints.http];
    const without = await cli(['account', 'list', ...url]);
    expect(without.code).toBe(1);
    expect(without.message).toContain('unauthorized');
    const tokenFile = join(daemon.dataDir, 'auth.token');
    const listed = await runCliJson<{ accounts: unknown[] }>(
      ['account', 'list', ...url, '--token-file', tokenFile],
      env(),
    );
    expect(Array.isArray(listed.accounts)).toBe(true);
    const byEnv = await cli(['account', 'list', ...url], { NODE_CLI_TOKEN: daemon.token });
    expect(byEnv.code).toBe(0);
  });

  it('follows consensus events of a daemon given by --consensus-url', async () => {
    const result = await cli([
      'events',
      'tail',
      '--consensus-url',
      daemon.endpoints.consensusWs as string,
      '--count',
      '1',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ type: 'tendermint/event/NewBlock' });
  });

  it('asks for the URL a command needs when others are given', async () => {
    const result = await cli(['events', 'tail', '--rpc-url', daemon.endpoints.http]);
    expect(result.code).toBe(2);
    expect(result.message).toContain('needs --consensus-url');
  });

  it('reads blocks, balances and calls of anvil', async () => {
    const block = await cli(['block', 'get', 'latest', '--json', '--rpc-url', anvilUrl]);
    expect(block.code).toBe(0);
    expect(JSON.parse(block.stdout)).toHaveProperty('hash');
    const balance = await cli(['account', 'balance', DEV_ACCOUNT, '--rpc-url', anvilUrl]);
    expect(balance.code).toBe(0);
    expect(balance.stdout).toContain('10000.0 ETH');
    const chainId = await cli(['rpc', 'eth_chainId', '--rpc-url', anvilUrl]);
    expect(chainId.stdout).toBe('0x7a69\n');
  });

  it('names the address that does not answer, and refuses a malformed URL', async () => {
    const port = await freePort();
    const down = await cli(['rpc', 'eth_blockNumber', '--rpc-url', `http://127.0.0.1:${port}`]);
    expect(down.code).toBe(1);
    expect(down.message).toContain(`cannot reach the node at http://127.0.0.1:${port}`);
    expect(down.stderr).not.toContain('    at ');
    const malformed = await cli(['rpc', 'eth_blockNumber', '--rpc-url', 'localhost:8545']);
    expect(malformed.code).toBe(2);
    expect(malformed.message).toContain('invalid --rpc-url "localhost:8545"');
  });
});
