import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import {
  loadWireScript,
  replayOverHttp,
  replayOverWs,
  type ReplayOutcome,
} from '../helpers/wire-script.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/wire/', import.meta.url));
/** Scripts replayed with the auth token; all others without it. */
const AUTHENTICATED_SCRIPTS = new Set(['private-authenticated.io']);

function expectAll(outcomes: ReplayOutcome[]): void {
  for (const { exchange, actual } of outcomes) {
    expect({ comment: exchange.comment, request: exchange.request, answer: actual }).toEqual({
      comment: exchange.comment,
      request: exchange.request,
      answer: exchange.expected,
    });
  }
}

describe('JSON-RPC wire scripts against a real daemon', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon();
  });
  afterAll(() => daemon?.stop());

  const scripts = readdirSync(FIXTURES).filter((name) => name.endsWith('.io'));

  it.each(scripts)('%s over HTTP', async (name) => {
    const token = AUTHENTICATED_SCRIPTS.has(name) ? daemon.token : undefined;
    const client = new HttpRpcClient(daemon.endpoints.http, { token });
    try {
      expectAll(await replayOverHttp(client, loadWireScript(join(FIXTURES, name))));
    } finally {
      await client.close();
    }
  });

  it.each(scripts)('%s over WebSocket', async (name) => {
    const token = AUTHENTICATED_SCRIPTS.has(name) ? daemon.token : undefined;
    expectAll(await replayOverWs(daemon.endpoints.ws, loadWireScript(join(FIXTURES, name)), token));
  });

  it('answers web3_clientVersion with the package version on both transports', async () => {
    const overHttp = await daemon.rpc.call<string>('web3_clientVersion');
    expect(overHttp).toMatch(/^node-cli\/v\d+\.\d+\.\d+\/linux-x64\/node20\./);
    const ws = await (
      await import('../../src/client/ws-rpc-client.js')
    ).WsRpcClient.connect(daemon.endpoints.ws);
    try {
      expect(await ws.call('web3_clientVersion')).toBe(overHttp);
    } finally {
      await ws.close();
    }
  });
});
