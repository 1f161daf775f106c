import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Readiness } from '../../src/shared/readiness.js';
import { runCliJsonWithCode } from '../helpers/cli.js';
import { resumeMining, stopMining } from '../helpers/dev-chain.js';
import { exchange } from '../helpers/raw-http-exchange.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

interface Probe {
  status: number;
  body: Readiness;
}

async function get(base: string, path: string) {
  const response = await fetch(new URL(path, base));
  const text = await response.text();
  return { status: response.status, text };
}

async function ready(base: string): Promise<Probe> {
  const { status, text } = await get(base, '/ready');
  return { status, body: JSON.parse(text) as Readiness };
}

describe('health and readiness', () => {
  let daemon: TestDaemon;
  let listeners: string[];

  beforeAll(async () => {
    daemon = await startTestDaemon(['--metrics.enable', '--metrics.address', '127.0.0.1:0']);
    listeners = [daemon.endpoints.http, daemon.endpoints.metrics as string];
  });
  afterAll(() => daemon?.stop());

  const daemonStatus = () =>
    runCliJsonWithCode<{ readiness?: Readiness }>([
      'daemon',
      'status',
      '--datadir',
      daemon.dataDir,
    ]);

  it('answers /health and a passing /ready on the JSON-RPC and metrics listeners', async () => {
    for (const base of listeners) {
      const health = await get(base, '/health');
      expect(health.status).toBe(200);
      expect(JSON.parse(health.text)).toMatchObject({ status: 'ok' });
      const probe = await ready(base);
      expect(probe).toMatchObject({ status: 200, body: { ready: true, failed: [] } });
      expect(Object.keys(probe.body.checks)).toEqual([
        'chain',
        'block_production',
        'head_age',
        'listeners',
      ]);
      expect(probe.body.checks.listeners.detail).toContain('json-rpc http');
      expect(probe.body.checks.listeners.detail).toContain('metrics');
    }
  });

  it('keeps the Host guard: a probe naming a host that is not allowed is refused', async () => {
    for (const base of listeners) {
      const request = 'GET /ready HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n';
      const [refused] = await exchange(Number(new URL(base).port), Buffer.from(request));
      expect(refused.status).toBe(403);
      expect(refused.body.toString()).toContain('invalid host specified: attacker.example');
    }
  });

  it('turns unready while block production is switched off and ready again after', async () => {
    expect((await ready(daemon.endpoints.http)).status).toBe(200);
    await stopMining(daemon);
    try {
      for (const base of listeners) {
        const probe = await ready(base);
        expect(probe.status).toBe(503);
        expect(probe.body.ready).toBe(false);
        expect(probe.body.failed).toContain('block_production');
        expect(probe.body.checks.block_production).toEqual({
          ok: false,
          detail: expect.stringContaining('stopped by evm_setAutomine(false)'),
        });
        expect(probe.body.checks.chain.ok).toBe(true);
      }
      const stopped = await daemonStatus();
      expect(stopped.code).toBe(1);
      expect(stopped.value.readiness?.failed).toContain('block_production');
    } finally {
      await resumeMining(daemon);
    }

    for (const base of listeners) {
      await waitFor(async () => (await ready(base)).status === 200, 15_000, `${base}/ready`);
    }
    const head = BigInt(await daemon.rpc.call<string>('eth_blockNumber'));
    await waitFor(
      async () => BigInt(await daemon.rpc.call<string>('eth_blockNumber')) > head,
      15_000,
      'a block after mining resumed',
    );
    const running = await daemonStatus();
    expect(running.code).toBe(0);
    expect(running.value.readiness?.ready).toBe(true);
  });
});
