/**
 * The REST commands through the built binary against a real daemon: `node status` and
 * `crypto sign|verify|encrypt|decrypt`, input from a file or stdin, `--json` parsed; exit
 * codes 0, 1 (refused by the node, not verified) and 2 (unusable input).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { checksumAddress } from '../../src/shared/address.js';
import type { NodeMeta, SealedContent, SignedContent } from '../../src/shared/rest-api.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import {
  LOOPBACK_FLAGS,
  makeDataDir,
  startTestDaemon,
  type TestDaemon,
} from '../helpers/test-daemon.js';

let daemon: TestDaemon;
let files: string;
const payload = { order: 7, lines: [{ sku: 'a', qty: 2 }] };

beforeAll(async () => {
  daemon = await startTestDaemon();
  files = mkdtempSync(join(tmpdir(), 'node-cli-rest-cli-'));
  writeFileSync(join(files, 'payload.json'), JSON.stringify(payload));
});

afterAll(async () => {
  await daemon?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

const at = () => ['--datadir', daemon.dataDir];

describe('node status', () => {
  it('prints the metadata; --json is the REST meta', async () => {
    const meta = await runCliJson<NodeMeta>(['node', 'status', ...at()]);
    expect(meta).toMatchObject({ nodeJsVersion: expect.any(String), fileCount: 0, peersCount: 0 });
    expect(meta.apiRoutes.flat()).toContain('GET => /v1/api/status/meta (meta)');
    const human = await runCli(['node', 'status', ...at()]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/version\s+service\/v/);
    expect(human.stdout).toContain('GET => /v1/api/ws/node (nodeEvents)');
  });

  it('names the data directory when no daemon runs there (exit 1)', async () => {
    const empty = makeDataDir();
    const result = await runCli(['node', 'status', '--datadir', empty]);
    rmSync(empty, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.message).toContain(`no daemon is running for data directory ${empty}`);
    expect(result.message).toContain('or name a node with --rest-url');
  });

  it('says the daemon runs without REST rather than that none runs (exit 1)', async () => {
    const restless = await startTestDaemon(['--no-rest.enable']);
    try {
      const result = await runCli(['node', 'status', '--datadir', restless.dataDir]);
      expect(result.code).toBe(1);
      expect(result.message).toContain(
        `the daemon of data directory ${restless.dataDir} runs, but its REST interface is disabled (--no-rest.enable); name a node with --rest-url instead`,
      );
    } finally {
      await restless.stop();
    }
  });
});

describe('crypto', () => {
  it('sign (file) then verify (stdin) for the node address; another owner exits 1', async () => {
    const signed = await runCliJson<SignedContent>([
      'crypto',
      'sign',
      join(files, 'payload.json'),
      ...at(),
    ]);
    expect(signed).toMatchObject({ data: payload, algorithm: 'eip191-secp256k1-rfc8785' });
    const input = JSON.stringify(signed);
    const verified = await runCli(
      ['crypto', 'verify', signed.signer, ...at(), '--json'],
      {},
      input,
    );
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toEqual({
      owner: checksumAddress(signed.signer),
      verified: true,
    });
    const other = await runCli(['crypto', 'verify', DEV_ADDRESSES[1], ...at()], {}, input);
    expect(other.code).toBe(1);
    expect(other.stdout).toContain(`NOT signed by ${DEV_ADDRESSES[1]}`);
  });

  it('encrypt (stdin) then decrypt (file) round-trips', async () => {
    const sealed = JSON.parse(
      (await runCli(['crypto', 'encrypt', ...at(), '--json'], {}, JSON.stringify(payload))).stdout,
    ) as SealedContent;
    expect(sealed.ciphertext).toMatch(/^0x04[0-9a-f]+$/);
    writeFileSync(join(files, 'sealed.json'), JSON.stringify(sealed));
    const opened = await runCliJson<unknown>([
      'crypto',
      'decrypt',
      join(files, 'sealed.json'),
      ...at(),
    ]);
    expect(opened).toEqual(payload);
  });

  it('unusable input exits 2 naming it; a refused request exits 1 with the node message', async () => {
    writeFileSync(join(files, 'broken.json'), '{nope');
    const broken = await runCli(['crypto', 'sign', join(files, 'broken.json'), ...at()]);
    expect(broken.code).toBe(2);
    expect(broken.message).toContain(`${join(files, 'broken.json')} is not JSON`);
    const missing = await runCli(['crypto', 'sign', join(files, 'absent.json'), ...at()]);
    expect(missing.code).toBe(2);
    expect(missing.message).toContain('cannot read');
    const tampered = await runCli(
      ['crypto', 'decrypt', ...at(), '--json'],
      {},
      JSON.stringify({ ciphertext: '0x04ab' }),
    );
    expect(tampered.code).toBe(1);
    expect(JSON.parse(tampered.stdout)).toEqual({
      error: {
        message: expect.stringMatching(/^REST error 400: data\.ciphertext cannot be decrypted/),
        exit: 1,
      },
    });
  });
});

describe('daemon start', () => {
  it('names --rest.address when its port is taken', async () => {
    const port = new URL(daemon.endpoints.rest as string).port;
    const dataDir = makeDataDir();
    const flags = LOOPBACK_FLAGS.map((flag, index) =>
      LOOPBACK_FLAGS[index - 1] === '--rest.address' ? `127.0.0.1:${port}` : flag,
    );
    const result = await runCli(['daemon', 'start', '--datadir', dataDir, ...flags]);
    rmSync(dataDir, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(result.message).toContain(
      `cannot listen on 127.0.0.1:${port} (--rest.address): address already in use`,
    );
  });
});
