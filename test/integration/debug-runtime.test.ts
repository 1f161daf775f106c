/**
 * The runtime methods of the debug namespace against a real daemon: each answers real data about
 * the process; the files they write parse as what DevTools and Perfetto open; names outside
 * `<datadir>/profiles` are refused; one recording of a kind runs at a time; none is served
 * without the token.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { WsRpcClient } from '../../src/client/ws-rpc-client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

let daemon: TestDaemon;
let rpc: HttpRpcClient;
let profiles: string;

beforeAll(async () => {
  daemon = await startTestDaemon();
  rpc = daemon.authedRpc;
  profiles = join(realpathSync(daemon.dataDir), 'profiles');
  mkdirSync(profiles);
  writeFileSync(join(profiles, STALE), 'left by a daemon stopped while it recorded');
  writeFileSync(join(profiles, 'notes.tmp'), 'not ours');
}, 60_000);

/** A temporary file of a recording the daemon did not finish (it stopped meanwhile). */
const STALE = 'trace.json.0123456789ab.tmp';

afterAll(async () => {
  await daemon?.stop();
});

const RUNTIME_METHODS: ReadonlyArray<[string, unknown[]]> = [
  ['debug_memStats', []],
  ['debug_gcStats', []],
  ['debug_freeOSMemory', []],
  ['debug_setGCPercent', [20]],
  ['debug_stacks', []],
  ['debug_cpuProfile', ['anon.cpuprofile', 1]],
  ['debug_startCPUProfile', ['anon.cpuprofile']],
  ['debug_stopCPUProfile', []],
  ['debug_writeMemProfile', ['anon.heapsnapshot']],
  ['debug_blockProfile', ['anon.json', 1]],
  ['debug_setBlockProfileRate', [1]],
  ['debug_writeBlockProfile', ['anon.json']],
  ['debug_mutexProfile', ['anon.json', 1]],
  ['debug_setMutexProfileFraction', [1]],
  ['debug_writeMutexProfile', ['anon.json']],
  ['debug_goTrace', ['anon.json', 1]],
  ['debug_startGoTrace', ['anon.json']],
  ['debug_stopGoTrace', []],
];

/** Methods that take a file name first, with the rest of a valid parameter list. */
const FILE_METHODS: ReadonlyArray<[string, unknown[]]> = RUNTIME_METHODS.filter(
  ([, params]) => typeof params[0] === 'string',
).map(([method, params]) => [method, params.slice(1)]);

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function expectCpuProfile(path: string): void {
  const profile = readJson<CpuProfile>(path);
  expect(profile.nodes.length).toBeGreaterThan(0);
  expect(profile.nodes[0].callFrame.functionName).toBe('(root)');
  expect(profile.samples.length).toBeGreaterThan(0);
  expect(profile.timeDeltas).toHaveLength(profile.samples.length);
  const ids = new Set(profile.nodes.map((node) => node.id));
  expect(profile.samples.every((id) => ids.has(id))).toBe(true);
  expect(profile.endTime).toBeGreaterThan(profile.startTime);
}

interface TraceFile {
  traceEvents: Array<{ ph: string; ts: number; pid: number; cat: string; name: string }>;
}

function expectTrace(path: string): void {
  const { traceEvents } = readJson<TraceFile>(path);
  expect(traceEvents.length).toBeGreaterThan(0);
  for (const event of traceEvents) {
    expect(typeof event.ph).toBe('string');
    expect(typeof event.name).toBe('string');
    expect(event.pid).toBe(daemon.pid);
  }
}

/** Polls `read` until `done` holds, failing after `timeoutMs`. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('debug runtime methods', () => {
  it('refuses every runtime method without the token', async () => {
    for (const [method, params] of RUNTIME_METHODS) {
      await expect(daemon.rpc.call(method, params)).rejects.toMatchObject({
        code: -32001,
        message: `unauthorized: ${method} requires authentication`,
      });
    }
    expect(readdirSync(profiles).sort()).toEqual(['notes.tmp', STALE]);
  });

  it('refuses block and mutex profiles that were never turned on', async () => {
    await expect(rpc.call('debug_writeBlockProfile', ['block.json'])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('call debug_setBlockProfileRate with a rate above 0'),
    });
    await expect(rpc.call('debug_writeMutexProfile', ['mutex.json'])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('call debug_setMutexProfileFraction'),
    });
  });

  it('debug_memStats reports the process memory', async () => {
    const stats = await rpc.call<Record<string, number>>('debug_memStats');
    expect(stats.heapUsed).toBeGreaterThan(0);
    expect(stats.heapTotal).toBeGreaterThanOrEqual(stats.heapUsed);
    expect(stats.rss).toBeGreaterThan(stats.heapUsed);
    expect(stats.heapSizeLimit).toBeGreaterThan(stats.heapTotal);
  });

  it('debug_freeOSMemory runs a full collection that debug_gcStats then counts', async () => {
    interface GcStats {
      NumGC: number;
      PauseTotal: number;
      Pause: number[];
      PauseEnd: string[];
      LastGC: string | null;
      Kinds: Record<string, { Count: number; PauseTotal: number }>;
    }
    const before = await rpc.call<GcStats>('debug_gcStats');
    const fullBefore = before.Kinds.MarkSweepCompact?.Count ?? 0;
    expect(await rpc.call('debug_freeOSMemory')).toBeNull();
    const after = await eventually(
      () => rpc.call<GcStats>('debug_gcStats'),
      (stats) => (stats.Kinds.MarkSweepCompact?.Count ?? 0) > fullBefore,
    );
    expect(after.NumGC).toBeGreaterThan(before.NumGC);
    expect(after.Pause).toHaveLength(Math.min(after.NumGC, 256));
    expect(after.PauseEnd).toHaveLength(after.Pause.length);
    expect(after.PauseTotal).toBeGreaterThanOrEqual(after.Pause[0]);
    expect(Date.parse(after.LastGC ?? '')).toBe(Date.parse(after.PauseEnd[0]));
    const kindTotal = Object.values(after.Kinds).reduce((sum, kind) => sum + kind.Count, 0);
    expect(kindTotal).toBe(after.NumGC);
  });

  it('debug_setGCPercent sets the heap growth and answers the previous value', async () => {
    expect(await rpc.call('debug_setGCPercent', [50])).toBe(20);
    expect(await rpc.call('debug_setGCPercent', [20])).toBe(50);
    await expect(rpc.call('debug_setGCPercent', [-1])).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("V8's collector cannot be turned off"),
    });
  });

  it('debug_stacks lists the JavaScript stack of each thread', async () => {
    // Call threads start on demand: a call starts one.
    await rpc.call('eth_call', [{ data: '0x' }, 'latest']);
    const stacks = await rpc.call<string>('debug_stacks');
    expect(stacks).toContain(`main thread, pid ${daemon.pid}`);
    expect(stacks).toMatch(/^ {2}at .*threadStacks/m);
    expect(stacks).toMatch(/active libuv handles: .*tcp \d+/);
    expect(stacks).toMatch(/worker thread 1 \(thread id \d+\)/);
    expect(stacks).not.toContain(daemon.token);
  });

  it('debug_cpuProfile writes a .cpuprofile while the daemon keeps answering', async () => {
    const profiling = rpc.call<string>('debug_cpuProfile', ['timed.cpuprofile', 2]);
    const order: string[] = [];
    void profiling.then(() => order.push('profile'));
    await rpc.call('eth_blockNumber');
    order.push('eth_blockNumber');
    const path = await profiling;
    expect(order).toEqual(['eth_blockNumber', 'profile']);
    expect(path).toBe(join(profiles, 'timed.cpuprofile'));
    expectCpuProfile(path);
    expect(existsSync(join(profiles, STALE))).toBe(false);
    expect(existsSync(join(profiles, 'notes.tmp'))).toBe(true);
  });

  it('debug_startCPUProfile and debug_stopCPUProfile run one CPU profile at a time', async () => {
    const target = join(profiles, 'started.cpuprofile');
    expect(await rpc.call('debug_startCPUProfile', [target])).toBe(target);
    const inProgress = { code: -32000, message: 'CPU profiling already in progress' };
    await expect(rpc.call('debug_startCPUProfile', ['other.cpuprofile'])).rejects.toMatchObject(
      inProgress,
    );
    await expect(rpc.call('debug_cpuProfile', ['other.cpuprofile', 1])).rejects.toMatchObject(
      inProgress,
    );
    await rpc.call('eth_blockNumber');
    expect(await rpc.call('debug_stopCPUProfile')).toBe(target);
    expectCpuProfile(target);
    await expect(rpc.call('debug_stopCPUProfile')).rejects.toMatchObject({
      code: -32000,
      message: 'CPU profiling not in progress',
    });
    expect(existsSync(join(profiles, 'other.cpuprofile'))).toBe(false);
  });

  it('refuses a second timed CPU profile and stopping a timed one', async () => {
    const answers = await Promise.allSettled([
      rpc.call<string>('debug_cpuProfile', ['first.cpuprofile', 1]),
      rpc.call<string>('debug_cpuProfile', ['second.cpuprofile', 1]),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(answers.find((answer) => answer.status === 'rejected')).toMatchObject({
      reason: { code: -32000, message: 'CPU profiling already in progress' },
    });
    // One WebSocket connection dispatches its messages in the order they arrive.
    const ws = await WsRpcClient.connect(daemon.endpoints.ws, { token: daemon.token });
    try {
      const timed = ws.call<string>('debug_cpuProfile', ['third.cpuprofile', 1]);
      await expect(ws.call('debug_stopCPUProfile')).rejects.toMatchObject({
        code: -32000,
        message: expect.stringContaining('timed: it ends by itself'),
      });
      expectCpuProfile(await timed);
    } finally {
      await ws.close();
    }
  });

  it('debug_writeMemProfile writes a heap snapshot DevTools can load', async () => {
    const path = await rpc.call<string>('debug_writeMemProfile', ['daemon.heapsnapshot']);
    expect(path).toBe(join(profiles, 'daemon.heapsnapshot'));
    const heap = readJson<{
      snapshot: { meta: { node_fields: string[]; edge_fields: string[] }; node_count: number };
      nodes: number[];
      edges: number[];
      strings: string[];
    }>(path);
    expect(heap.snapshot.meta.node_fields).toContain('name');
    expect(heap.nodes).toHaveLength(
      heap.snapshot.node_count * heap.snapshot.meta.node_fields.length,
    );
    expect(heap.edges.length % heap.snapshot.meta.edge_fields.length).toBe(0);
    expect(heap.strings.length).toBeGreaterThan(0);
  }, 60_000);

  it('debug_blockProfile writes the event-loop delay of its window', async () => {
    const path = await rpc.call<string>('debug_blockProfile', ['block-window.json', 1]);
    const profile = readJson<Record<string, unknown>>(path);
    expect(profile).toMatchObject({ profile: 'event-loop-delay', resolutionMs: 1 });
    expect(profile.samples).toBeGreaterThan(0);
    expect(profile.maxNs).toBeGreaterThanOrEqual(profile.minNs as number);
    expect(Object.keys(profile.percentilesNs as object)).toEqual([
      'p50',
      'p75',
      'p90',
      'p99',
      'p99.9',
      'p100',
    ]);
  });

  it('debug_setBlockProfileRate turns the block profile on and off', async () => {
    expect(await rpc.call('debug_setBlockProfileRate', [1_000_000])).toBeNull();
    const sampled = await eventually(
      async () =>
        readJson<{ samples: number; to: string }>(
          await rpc.call<string>('debug_writeBlockProfile', ['block.json']),
        ),
      (profile) => profile.samples > 0,
    );
    expect(sampled.samples).toBeGreaterThan(0);
    await rpc.call('debug_setBlockProfileRate', [0]);
    const first = readJson<{ samples: number; to: string }>(
      await rpc.call<string>('debug_writeBlockProfile', ['block.json']),
    );
    const second = readJson<{ samples: number; to: string }>(
      await rpc.call<string>('debug_writeBlockProfile', ['block.json']),
    );
    expect(second).toEqual(first);
  });

  it('debug_mutexProfile and debug_setMutexProfileFraction write event-loop utilisation', async () => {
    interface Utilization {
      profile: string;
      activeMs: number;
      idleMs: number;
      utilization: number;
    }
    const window = readJson<Utilization>(
      await rpc.call<string>('debug_mutexProfile', ['mutex-window.json', 1]),
    );
    expect(window.profile).toBe('event-loop-utilization');
    expect(window.activeMs).toBeGreaterThan(0);
    expect(window.utilization).toBeCloseTo(window.activeMs / (window.activeMs + window.idleMs));
    expect(await rpc.call('debug_setMutexProfileFraction', [1])).toBeNull();
    await rpc.call('eth_blockNumber');
    await rpc.call('debug_setMutexProfileFraction', [0]);
    const first = readJson<Utilization>(
      await rpc.call<string>('debug_writeMutexProfile', ['mutex.json']),
    );
    expect(first.activeMs).toBeGreaterThan(0);
    const second = readJson<Utilization>(
      await rpc.call<string>('debug_writeMutexProfile', ['mutex.json']),
    );
    expect(second.activeMs).toBe(first.activeMs);
  });

  it('debug_goTrace and debug_startGoTrace/debug_stopGoTrace write Chrome trace events', async () => {
    expectTrace(await rpc.call<string>('debug_goTrace', ['timed-trace.json', 1]));
    const target = await rpc.call<string>('debug_startGoTrace', ['trace.json']);
    await expect(rpc.call('debug_goTrace', ['other.json', 1])).rejects.toMatchObject({
      code: -32000,
      message: 'trace already in progress',
    });
    await rpc.call('eth_getBlockByNumber', ['latest', true]);
    expect(await rpc.call('debug_stopGoTrace')).toBe(target);
    expectTrace(target);
    const categories = new Set(
      readJson<TraceFile>(target).traceEvents.flatMap((event) => event.cat.split(',')),
    );
    expect(categories.has('node.async_hooks')).toBe(true);
    await expect(rpc.call('debug_stopGoTrace')).rejects.toMatchObject({
      message: 'trace not in progress',
    });
  });

  describe('file names', () => {
    let outside: string;

    beforeAll(() => {
      outside = mkdtempSync(join(tmpdir(), 'node-cli-outside-'));
      symlinkSync(outside, join(profiles, 'escape'));
    });

    afterAll(() => rmSync(outside, { recursive: true, force: true }));

    const refusals = (): string[] => [
      '../../etc/x',
      '../chain-identity.json',
      '/etc/x',
      join(daemon.dataDir, 'auth.token'),
      join(outside, 'x'),
      `${profiles}-evil/x`,
      'escape/x',
      'missing-folder/x',
      'x'.repeat(300),
      '',
    ];

    it.each(FILE_METHODS.map(([method, rest]) => ({ method, rest })))(
      '$method refuses names outside the profiles directory',
      async ({ method, rest }) => {
        for (const file of refusals()) {
          await expect(rpc.call(method, [file, ...rest])).rejects.toMatchObject({
            code: -32602,
            message: expect.stringMatching(/^invalid (file name|params)/),
          });
        }
        expect(existsSync(join(outside, 'x'))).toBe(false);
        expect(readFileSync(join(daemon.dataDir, 'auth.token'), 'utf8').trim()).toBe(daemon.token);
        if (method.startsWith('debug_start')) return;
        await expect(rpc.call(method, [join(profiles, 'absolute-inside'), ...rest])).resolves.toBe(
          join(profiles, 'absolute-inside'),
        );
      },
      60_000,
    );

    it('names the directory it writes to', async () => {
      await expect(rpc.call('debug_writeMemProfile', ['../../etc/x'])).rejects.toMatchObject({
        message: `invalid file name "../../etc/x": debug methods write only inside ${profiles}`,
      });
    });
  });
});
