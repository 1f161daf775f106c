/**
 * Garbage collections of the main isolate, from Node's `gc` performance entries, kept from the
 * moment the monitor starts (node start-up). The answer has the fields of Go's `debug.GCStats`
 * as geth returns them (nanosecond pauses, most recent first), plus counts per kind of V8
 * collection, which Go does not have.
 *
 * One monitor per process (`processGcMonitor`), which the metrics also listen to: each
 * `PerformanceObserver` of `gc` entries costs work at every collection, and a second one (as
 * prom-client's default collector installs) took 6–8% of read throughput (docs/metrics.md).
 */
import {
  constants,
  PerformanceObserver,
  performance,
  type PerformanceEntry,
} from 'node:perf_hooks';

/** Go keeps the last 256 pauses in `MemStats.PauseNs`; so do we. */
const KEPT_PAUSES = 256;

const KIND_NAMES: ReadonlyMap<number, string> = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'Scavenge'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'MarkSweepCompact'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'IncrementalMarking'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'ProcessWeakCallbacks'],
]);

interface KindTotals {
  Count: number;
  PauseTotal: number;
}

export interface GcStats {
  /** When the monitor started: collections before it are not counted. */
  Since: string;
  LastGC: string | null;
  NumGC: number;
  /** Nanoseconds. */
  PauseTotal: number;
  /** The last 256 pauses in nanoseconds, most recent first. */
  Pause: number[];
  /** When each of `Pause` ended, most recent first. */
  PauseEnd: string[];
  /** Go's field, which geth leaves empty. */
  PauseQuantiles: null;
  /** Collections and their pause total (nanoseconds) per V8 collector. */
  Kinds: Record<string, KindTotals>;
}

/** `gc` entries carry the collector in `detail` (Node's types leave it out). */
type GcEntry = PerformanceEntry & { detail?: { kind?: number } };

function nanoseconds(milliseconds: number): number {
  return Math.round(milliseconds * 1e6);
}

/** Told of each collection: V8's collector (`perf_hooks.constants.NODE_PERFORMANCE_GC_*`) and its pause. */
export type GcListener = (collector: number, seconds: number) => void;

export class GcMonitor {
  private readonly since = new Date();
  private readonly listeners: GcListener[] = [];
  private count = 0;
  private pauseTotal = 0;
  private readonly recent: Array<{ pause: number; end: number }> = [];
  private readonly kinds = new Map<string, KindTotals>();
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) this.record(entry);
  });

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stats(): GcStats {
    const newestFirst = [...this.recent].reverse();
    const last = newestFirst[0];
    return {
      Since: this.since.toISOString(),
      LastGC: last === undefined ? null : new Date(last.end).toISOString(),
      NumGC: this.count,
      PauseTotal: this.pauseTotal,
      Pause: newestFirst.map(({ pause }) => pause),
      PauseEnd: newestFirst.map(({ end }) => new Date(end).toISOString()),
      PauseQuantiles: null,
      Kinds: Object.fromEntries(this.kinds),
    };
  }

  /** Adds a listener of every collection from now on. */
  listen(listener: GcListener): void {
    this.listeners.push(listener);
  }

  private record(entry: PerformanceEntry): void {
    const pause = nanoseconds(entry.duration);
    const collector = (entry as GcEntry).detail?.kind ?? 0;
    for (const listener of this.listeners) listener(collector, entry.duration / 1000);
    const kind = KIND_NAMES.get(collector) ?? 'Other';
    this.count++;
    this.pauseTotal += pause;
    this.recent.push({ pause, end: performance.timeOrigin + entry.startTime + entry.duration });
    if (this.recent.length > KEPT_PAUSES) this.recent.shift();
    const totals = this.kinds.get(kind) ?? { Count: 0, PauseTotal: 0 };
    totals.Count++;
    totals.PauseTotal += pause;
    this.kinds.set(kind, totals);
  }
}

let processMonitor: GcMonitor | undefined;

/** The process's one GC monitor, started at the first call. */
export function processGcMonitor(): GcMonitor {
  processMonitor ??= new GcMonitor();
  return processMonitor;
}
