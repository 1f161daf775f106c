/**
 * The Go-runtime methods of the debug namespace, mapped to Node's own instruments
 * (decisions §10; docs/debug.md says what each returns and how it differs from geth). Each
 * answer is real data about this process's main thread. Methods that write files write only
 * inside `<datadir>/profiles`, and answer the absolute path they wrote (geth answers null).
 */
import { Session } from 'node:inspector/promises';
import { getHeapStatistics } from 'node:v8';
import { beginCpuProfile } from '../diagnostics/cpu-profile.js';
import {
  DelayWindow,
  RateControlledProfile,
  UtilizationWindow,
  delayResolutionMs,
  type ProfileWindow,
} from '../diagnostics/event-loop-profiles.js';
import { processGcMonitor } from '../diagnostics/gc-monitor.js';
import { collectHeapFully } from '../diagnostics/heap-collection.js';
import { writeHeapSnapshotTo } from '../diagnostics/heap-snapshot.js';
import { ProfileDirectory } from '../diagnostics/profile-directory.js';
import { MAX_RECORDING_SECONDS, Recorder } from '../diagnostics/recorder.js';
import { threadStacks } from '../diagnostics/thread-stacks.js';
import { beginTrace } from '../diagnostics/trace-recording.js';
import { ConflictError } from '../../shared/errors.js';
import { setHeapGrowingPercent } from '../heap-growth.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import type { ParamSpec } from '../rpc/params.js';

/** `debug_memStats`: process memory and V8 heap statistics, in bytes. */
export function memStats(): Record<string, number> {
  const usage = process.memoryUsage();
  const heap = getHeapStatistics();
  return {
    rss: usage.rss,
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    heapSizeLimit: heap.heap_size_limit,
    totalAvailableSize: heap.total_available_size,
    mallocedMemory: heap.malloced_memory,
    peakMallocedMemory: heap.peak_malloced_memory,
    nativeContexts: heap.number_of_native_contexts,
  };
}

/** Largest `debug_setGCPercent` value: the heap may grow to 11 times its live size. */
const MAX_GC_PERCENT = 1000;

const FILE: ParamSpec = {
  name: 'file',
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: 4096,
    description: 'a file name inside the profiles directory of the data directory',
  },
};

const SECONDS: ParamSpec = {
  name: 'nsec',
  schema: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_RECORDING_SECONDS,
    description: `a whole number of seconds from 1 to ${MAX_RECORDING_SECONDS}`,
  },
};

function rate(description: string): ParamSpec {
  return {
    name: 'rate',
    schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description },
  };
}

/** Go's block profile rate and mutex fraction turn their profile off at 0. */
const BLOCK_RATE = rate('a non-negative integer (nanoseconds; 0 turns block profiling off)');
const MUTEX_FRACTION = rate('a non-negative integer (0 turns mutex profiling off)');

function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Go's timed method (`file`, `nsec`) over a recorder. */
function timedMethod(name: string, recorder: Recorder): MethodDefinition {
  return defineMethod<[string, number]>({
    name,
    params: [FILE, SECONDS],
    handler: ([file, seconds]) => recorder.record(file, seconds),
  });
}

/** Go's timed, start and stop methods of one recorder. */
function recorderMethods(
  recorder: Recorder,
  [timed, start, stop]: [timed: string, start: string, stop: string],
): MethodDefinition[] {
  return [
    timedMethod(timed, recorder),
    defineMethod<[string]>({
      name: start,
      params: [FILE],
      handler: ([file]) => recorder.start(file),
    }),
    defineMethod<[]>({ name: stop, params: [], handler: () => recorder.stop() }),
  ];
}

interface EventLoopProfile {
  profile: 'block' | 'mutex';
  /** Go's timed profile, its rate setter, and its writer. */
  methods: [timed: string, setRate: string, write: string];
  rate: ParamSpec;
  /** A fresh window for the timed profile. */
  window: () => ProfileWindow<unknown>;
  /** The profile the rate turns on and off (a `RateControlledProfile`). */
  switched: { setRate(rate: number): void; profile(): unknown };
}

/** Go's three methods of the block or the mutex profile, over an event-loop measurement. */
function eventLoopProfileMethods(
  directory: ProfileDirectory,
  { profile, methods: [timed, setRate, write], rate, window, switched }: EventLoopProfile,
): MethodDefinition[] {
  const windows = new Recorder(`${profile} profiling`, directory, () => {
    const recording = window();
    return {
      finish: (path: string) => {
        recording.stop();
        return directory.writeFile(path, jsonText(recording.profile()));
      },
    };
  });
  return [
    timedMethod(timed, windows),
    defineMethod<[number]>({
      name: setRate,
      params: [rate],
      handler: ([value]) => {
        switched.setRate(value);
        return null;
      },
    }),
    defineMethod<[string]>({
      name: write,
      params: [FILE],
      handler: async ([file]) => {
        const content = switched.profile();
        if (content === undefined) {
          throw new ConflictError(
            `${profile} profiling was never turned on: call ${setRate} with a rate above 0 first`,
          );
        }
        const path = await directory.resolve(file);
        await directory.writeFile(path, jsonText(content));
        return path;
      },
    }),
  ];
}

/**
 * The debug methods over the instruments of this process, writing into `profilesDir`;
 * `debug_freeOSMemory` runs `freeOsMemory` (`releaseMemory` of `heavy-work-release.ts`).
 */
export function debugRuntimeMethods(
  profilesDir: string,
  freeOsMemory: () => Promise<unknown> = collectHeapFully,
): MethodDefinition[] {
  const directory = new ProfileDirectory(profilesDir);
  let session: Session | undefined;
  const inspector = () => {
    if (session === undefined) {
      session = new Session();
      session.connect();
    }
    return session;
  };
  const gc = processGcMonitor();

  return [
    defineMethod<[]>({ name: 'debug_memStats', params: [], handler: () => memStats() }),
    defineMethod<[]>({ name: 'debug_gcStats', params: [], handler: () => gc.stats() }),
    defineMethod<[]>({
      name: 'debug_freeOSMemory',
      params: [],
      handler: async () => {
        await freeOsMemory();
        return null;
      },
    }),
    defineMethod<[number]>({
      name: 'debug_setGCPercent',
      params: [
        {
          name: 'v',
          schema: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_GC_PERCENT,
            description: `an integer percentage from 1 to ${MAX_GC_PERCENT} (V8's collector cannot be turned off)`,
          },
        },
      ],
      handler: ([percent]) => setHeapGrowingPercent(percent),
    }),
    defineMethod<[]>({ name: 'debug_stacks', params: [], handler: () => threadStacks() }),
    ...recorderMethods(
      new Recorder('CPU profiling', directory, () => beginCpuProfile(inspector(), directory)),
      ['debug_cpuProfile', 'debug_startCPUProfile', 'debug_stopCPUProfile'],
    ),
    defineMethod<[string]>({
      name: 'debug_writeMemProfile',
      params: [FILE],
      handler: async ([file]) => {
        const path = await directory.resolve(file);
        await writeHeapSnapshotTo(directory, path);
        return path;
      },
    }),
    ...eventLoopProfileMethods(directory, {
      profile: 'block',
      methods: ['debug_blockProfile', 'debug_setBlockProfileRate', 'debug_writeBlockProfile'],
      rate: BLOCK_RATE,
      window: () => new DelayWindow(delayResolutionMs(1)),
      switched: new RateControlledProfile(
        (rateNs) => new DelayWindow(delayResolutionMs(rateNs)),
        (window, rateNs) => window.resolutionMs === delayResolutionMs(rateNs),
      ),
    }),
    ...eventLoopProfileMethods(directory, {
      profile: 'mutex',
      methods: ['debug_mutexProfile', 'debug_setMutexProfileFraction', 'debug_writeMutexProfile'],
      rate: MUTEX_FRACTION,
      window: () => new UtilizationWindow(),
      switched: new RateControlledProfile(() => new UtilizationWindow()),
    }),
    ...recorderMethods(
      new Recorder('trace', directory, (path) => beginTrace(inspector(), directory, path)),
      ['debug_goTrace', 'debug_startGoTrace', 'debug_stopGoTrace'],
    ),
  ];
}
