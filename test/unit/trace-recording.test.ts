/**
 * The trace file of debug_goTrace, recorded in this process: valid Chrome trace JSON however the
 * tracing agent splits its events, and cut at its size limit with the dropped events counted.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileDirectory } from '../../src/daemon/diagnostics/profile-directory.js';
import { beginTrace } from '../../src/daemon/diagnostics/trace-recording.js';

const root = mkdtempSync(join(tmpdir(), 'node-cli-trace-'));
const session = new Session();
session.connect();

afterAll(() => {
  session.disconnect();
  rmSync(root, { recursive: true, force: true });
});

interface TraceFile {
  traceEvents: Array<{ name: string; ph: string }>;
  otherData: { droppedEvents: string };
}

/** Asynchronous work for the async_hooks category to record. */
async function promiseWork(rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    await Promise.all(Array.from({ length: 100 }, (_, index) => Promise.resolve(index)));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function trace(name: string, maxBytes?: number): Promise<TraceFile> {
  const directory = new ProfileDirectory(root);
  const path = await directory.resolve(name);
  const recording = await beginTrace(session, directory, path, maxBytes);
  await promiseWork(50);
  await recording.finish(path);
  return JSON.parse(readFileSync(path, 'utf8')) as TraceFile;
}

describe('trace recording', () => {
  it('writes every event the agent hands over', async () => {
    const file = await trace('whole.json');
    expect(file.traceEvents.length).toBeGreaterThan(5000);
    expect(file.traceEvents.some((event) => event.name === 'PROMISE')).toBe(true);
    expect(file.otherData.droppedEvents).toBe('0');
  });

  it('stops growing at its size limit and counts what it dropped', async () => {
    const file = await trace('capped.json', 20_000);
    expect(file.traceEvents.length).toBeGreaterThan(0);
    expect(JSON.stringify(file.traceEvents).length).toBeLessThanOrEqual(20_000);
    expect(Number(file.otherData.droppedEvents)).toBeGreaterThan(0);
    expect(readdirSync(root).sort()).toEqual(['capped.json', 'whole.json']);
  });
});
