/**
 * The storage layer across a SIGKILL: a large upload killed half-way never lists as a file, the
 * restart marks it failed and collects every byte it left, and the files stored before are
 * untouched and readable. And across a move of the data directory: the files stay readable.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { RestClient } from '../../src/client/rest-client.js';
import { isAlive, waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { daemonLogText } from '../helpers/daemon-log.js';
import { runCli } from '../helpers/cli.js';

const MiB = 1024 * 1024;

/** Names of the files under `dir/sub/*` (replica files or temporary files). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? readdirSync(join(dir, entry.name)) : [entry.name],
  );
}

describe('SIGKILL during a large upload', () => {
  const dataDir = makeDataDir();
  const volume = join(dataDir, 'storage');
  let restarted: TestDaemon | undefined;

  afterAll(async () => {
    if (restarted !== undefined) await restarted.stop();
    else rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists no partial file, and the restart collects its bytes and keeps the others', async () => {
    const first = await startTestDaemon([], dataDir);
    const rest = new RestClient(first.endpoints.rest as string, { token: first.token });
    const kept = randomBytes(3 * MiB + 5);
    const keptFile = await rest.upload(kept, { name: 'kept' });
    const keptReplicas = filesUnder(join(volume, 'chunks')).length;

    let sent = 0;
    const endless = Readable.from(
      (async function* () {
        for (;;) {
          sent += MiB;
          yield randomBytes(MiB);
        }
      })(),
    );
    const upload = rest.upload(endless, { name: 'interrupted' }).catch((error: unknown) => error);
    await waitFor(
      () => filesUnder(join(volume, 'chunks')).length >= keptReplicas + 8,
      60_000,
      'the upload to put 8 chunks on the volume',
    );
    process.kill(first.pid, 'SIGKILL');
    await waitFor(() => !isAlive(first.pid), 10_000, 'the killed daemon to exit');
    // The client's error (undici's) comes from another realm than jest's Error.
    expect(Object.prototype.toString.call(await upload)).toBe('[object Error]');
    endless.destroy();
    await rest.close();
    await Promise.all([first.rpc.close(), first.authedRpc.close()]);
    expect(sent).toBeGreaterThan(8 * MiB);
    expect(filesUnder(join(volume, 'chunks')).length).toBeGreaterThanOrEqual(keptReplicas + 8);

    restarted = await startTestDaemon([], dataDir);
    const after = new RestClient(restarted.endpoints.rest as string, { token: restarted.token });
    try {
      const files = (await after.files()).files;
      expect(files.map((file) => file.localPath)).toEqual(['kept']);
      expect((await after.meta()).fileCount).toBe(1);
      expect(filesUnder(join(volume, 'chunks')).sort()).toEqual(
        [...new Set(keptFile.chunkIds)].sort(),
      );
      expect(readdirSync(volume)).toEqual(['chunks']);
      const content = Buffer.from(await after.fileContent(keptFile.id, 'base64'), 'base64');
      expect(createHash('sha256').update(content).digest('hex')).toBe(
        createHash('sha256').update(kept).digest('hex'),
      );
      const log = daemonLogText(dataDir);
      expect(log).toMatch(/upload interrupted by a stop: marked failed .*localPath=interrupted/);
      expect(log).toMatch(
        /storage recovered failedUploads=1 tempFiles=\d+ adoptedReplicas=0 orphanChunks=([89]|\d\d+)/,
      );
    } finally {
      await after.close();
    }
  });
});

describe('a data directory moved while the daemon is stopped', () => {
  const dataDir = makeDataDir();
  const moved = `${dataDir}-moved`;
  let restarted: TestDaemon | undefined;

  afterAll(async () => {
    if (restarted !== undefined) await restarted.stop();
    for (const dir of [dataDir, moved]) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every stored byte: the replicas are recorded under the new path', async () => {
    const first = await startTestDaemon([], dataDir);
    const rest = new RestClient(first.endpoints.rest as string, { token: first.token });
    const bytes = randomBytes(2 * MiB + 7);
    const file = await rest.upload(bytes, { name: 'moved' });
    await rest.close();
    await Promise.all([first.rpc.close(), first.authedRpc.close()]);
    await runCli(['daemon', 'stop', '--datadir', dataDir]);
    renameSync(dataDir, moved);

    restarted = await startTestDaemon([], moved);
    const after = new RestClient(restarted.endpoints.rest as string, { token: restarted.token });
    try {
      expect(filesUnder(join(moved, 'storage', 'chunks')).sort()).toEqual(
        [...new Set(file.chunkIds)].sort(),
      );
      const content = Buffer.from(await after.fileContent(file.id, 'base64'), 'base64');
      expect(content.equals(bytes)).toBe(true);
      expect((await after.file(file.id)).ul_status).toBe('uploaded');
      expect(daemonLogText(moved)).toMatch(
        new RegExp(
          `storage recovered .*adoptedReplicas=${new Set(file.chunkIds).size} orphanChunks=0`,
        ),
      );
    } finally {
      await after.close();
    }
  });
});
