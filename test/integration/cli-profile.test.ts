/**
 * `daemon profile cpu|heap` against a real daemon: the file lands in `<datadir>/profiles` (or is
 * moved to -o) and parses as the format DevTools opens.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli, runCliJson } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

interface ProfileResult {
  kind: 'cpu' | 'heap';
  file: string;
  bytes: number;
  durationSeconds?: number;
}

let daemon: TestDaemon;
let output: string;

beforeAll(async () => {
  daemon = await startTestDaemon();
  output = mkdtempSync(join(tmpdir(), 'node-cli-profile-out-'));
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  rmSync(output, { recursive: true, force: true });
});

describe('daemon profile', () => {
  it('cpu --duration 1s writes a .cpuprofile into the profiles directory', async () => {
    const result = await runCliJson<ProfileResult>([
      'daemon',
      'profile',
      'cpu',
      '--duration',
      '1s',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(result.kind).toBe('cpu');
    expect(result.durationSeconds).toBe(1);
    expect(dirname(result.file)).toBe(join(realpathSync(daemon.dataDir), 'profiles'));
    expect(result.file).toMatch(/\/cpu-[0-9TZ-]+\.cpuprofile$/);
    const text = readFileSync(result.file, 'utf8');
    expect(result.bytes).toBe(Buffer.byteLength(text));
    const profile = JSON.parse(text) as {
      nodes: Array<{ id: number; callFrame: object }>;
      samples: number[];
      timeDeltas: number[];
      startTime: number;
      endTime: number;
    };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.samples.length).toBeGreaterThan(0);
    expect(profile.timeDeltas).toHaveLength(profile.samples.length);
    expect(profile.endTime).toBeGreaterThan(profile.startTime);
  });

  it('heap -o moves the snapshot to the given file and prints where it is', async () => {
    const target = join(output, 'daemon.heapsnapshot');
    const result = await runCli([
      'daemon',
      'profile',
      'heap',
      '-o',
      target,
      '--datadir',
      daemon.dataDir,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`wrote ${target} (`);
    expect(result.stdout).toContain('Chrome DevTools');
    const snapshot = JSON.parse(readFileSync(target, 'utf8')) as {
      snapshot: { meta: { node_fields: string[] }; node_count: number };
      nodes: number[];
      strings: string[];
    };
    expect(snapshot.nodes).toHaveLength(
      snapshot.snapshot.node_count * snapshot.snapshot.meta.node_fields.length,
    );
    expect(snapshot.strings.length).toBeGreaterThan(0);
    const left = readdirSync(join(daemon.dataDir, 'profiles')).filter((name) =>
      name.endsWith('.heapsnapshot'),
    );
    expect(left).toEqual([]);
  }, 60_000);

  it('keeps the profile in the data directory when -o cannot be written', async () => {
    const target = join(output, 'missing', 'daemon.cpuprofile');
    const result = await runCli([
      'daemon',
      'profile',
      'cpu',
      '--duration',
      '1s',
      '-o',
      target,
      '--datadir',
      daemon.dataDir,
    ]);
    expect(result.code).toBe(1);
    const kept = /it stays at (\S+\.cpuprofile)/.exec(result.message)?.[1];
    expect(result.message).toContain(`could not move the profile to ${target}`);
    expect(kept).toBeDefined();
    expect(dirname(kept ?? '')).toBe(join(realpathSync(daemon.dataDir), 'profiles'));
    expect(JSON.parse(readFileSync(kept ?? '', 'utf8'))).toHaveProperty('samples');
  });

  it('refuses durations it cannot sample, and --duration for heap snapshots', async () => {
    for (const [args, message] of [
      [['cpu', '--duration', '1.5s'], '--duration must be whole seconds from 1s to 5m'],
      [['cpu', '--duration', '10m'], '--duration must be whole seconds from 1s to 5m'],
      [['cpu', '--duration', 'soon'], '--duration: expected a duration'],
      [['heap', '--duration', '2s'], '--duration applies to cpu profiles only'],
    ] as const) {
      const result = await runCli(['daemon', 'profile', ...args, '--datadir', daemon.dataDir]);
      expect(result.code).toBe(2);
      expect(result.message).toContain(message);
    }
  });
});
