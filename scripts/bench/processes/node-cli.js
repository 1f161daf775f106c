// Starts and stops this node the way an operator does: `node-cli daemon start` in a fresh
// temporary data directory, every listener on loopback, then `node-cli daemon stop`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpRpcClient } from '../../../dist/client/http-rpc-client.js';
import { freePort } from './free-port.js';

export const CLI_ENTRY = fileURLToPath(new URL('../../../bin/run.js', import.meta.url));

/** Flags that put every listener of the daemon on loopback, JSON-RPC HTTP on `port`. */
export function loopbackFlags(port) {
  return [
    '--json-rpc.address',
    `127.0.0.1:${port}`,
    '--json-rpc.ws-address',
    '127.0.0.1:0',
    '--rpc.laddr',
    'tcp://127.0.0.1:0',
    '--rest.address',
    '127.0.0.1:0',
  ];
}

/**
 * Arguments of `node-cli daemon start` (background, JSON output) for `dataDir`, JSON-RPC HTTP on
 * `port`, blocks every `blockTime` (e.g. '1s', '0'), then `extraFlags`.
 */
export function daemonStartArgs(dataDir, port, blockTime, extraFlags = []) {
  return [
    'daemon',
    'start',
    '--datadir',
    dataDir,
    ...loopbackFlags(port),
    '--block-time',
    blockTime,
    ...extraFlags,
    '--json',
  ];
}

/** A fresh temporary data directory for one daemon. */
export function freshDataDir() {
  return mkdtempSync(join(tmpdir(), 'node-cli-bench-'));
}

/** Runs the CLI and resolves with its stdout; rejects with its output when it fails. */
export function runCli(args) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI_ENTRY, ...args],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`node-cli ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * What `debug_memStats` says of the daemon's heap, in MiB: how much V8 holds, how much of it is
 * live, and the memory outside V8 that JavaScript objects own (buffers). The method needs the
 * daemon's auth token, read from its data directory.
 */
async function heapMiB(url, dataDir) {
  const token = readFileSync(join(dataDir, 'auth.token'), 'utf8').trim();
  const rpc = new HttpRpcClient(url, { token });
  try {
    const stats = await rpc.call('debug_memStats', []);
    const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
    return {
      heapTotal: mib(stats.heapTotal),
      heapUsed: mib(stats.heapUsed),
      external: mib(stats.external),
    };
  } finally {
    await rpc.close();
  }
}

/**
 * Starts the daemon with `daemon start` (which returns once the node answers) and `blockTime`
 * as given to --block-time (e.g. '1s', '0'), with `extraFlags` after the others.
 * @param {string} blockTime
 * @param {string[]} [extraFlags]
 * @returns {Promise<import('./anvil.js').RunningNode & {endpoints: Record<string, string>}>}
 */
export async function startNodeCli(blockTime, extraFlags = []) {
  const dataDir = freshDataDir();
  const port = await freePort();
  const started = JSON.parse(await runCli(daemonStartArgs(dataDir, port, blockTime, extraFlags)));
  return {
    name: 'node-cli',
    url: started.endpoints.http,
    endpoints: started.endpoints,
    pid: started.pid,
    dataDir,
    heapMiB: () => heapMiB(started.endpoints.http, dataDir),
    stop: async () => {
      await runCli(['daemon', 'stop', '--datadir', dataDir]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
