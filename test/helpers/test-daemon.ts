/**
 * Starts a real daemon through the CLI in a temporary data directory, every listener on a
 * free loopback port, and stops it (and removes the directory) afterwards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DaemonEndpoints } from '../../src/shared/daemon-info.js';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { runCli, runCliJson } from './cli.js';

export const LOOPBACK_FLAGS = [
  '--json-rpc.address',
  '127.0.0.1:0',
  '--json-rpc.ws-address',
  '127.0.0.1:0',
  '--rpc.laddr',
  'tcp://127.0.0.1:0',
  '--rest.address',
  '127.0.0.1:0',
];

export interface TestDaemon {
  dataDir: string;
  pid: number;
  endpoints: Required<Pick<DaemonEndpoints, 'http' | 'ws'>> & DaemonEndpoints;
  token: string;
  /** Client without the token (public methods only). */
  rpc: HttpRpcClient;
  /** Client with the token. */
  authedRpc: HttpRpcClient;
  stop(): Promise<void>;
}

export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'node-cli-test-'));
}

export async function startTestDaemon(
  extraFlags: readonly string[] = [],
  dataDir = makeDataDir(),
): Promise<TestDaemon> {
  const started = await runCliJson<{ pid: number; endpoints: TestDaemon['endpoints'] }>([
    'daemon',
    'start',
    '--datadir',
    dataDir,
    ...LOOPBACK_FLAGS,
    ...extraFlags,
  ]);
  const token = readFileSync(join(dataDir, 'auth.token'), 'utf8').trim();
  const rpc = new HttpRpcClient(started.endpoints.http);
  const authedRpc = new HttpRpcClient(started.endpoints.http, { token });
  return {
    dataDir,
    pid: started.pid,
    endpoints: started.endpoints,
    token,
    rpc,
    authedRpc,
    stop: async () => {
      await Promise.all([rpc.close(), authedRpc.close()]);
      await runCli(['daemon', 'stop', '--datadir', dataDir]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
