/**
 * Garbage collections of the main isolate, from Node's `gc` performance entries, kept from the
 * moment the monitor starts (node start-up). The answer has the fields of Go's `debug.GCStats`
 * as geth returns them (nanosecond pauses, most recent first), plus counts per kind of V8
 * collection, which Go does not have.
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

export class GcMonitor {
  private readonly since = new Date();
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

  private record(entry: PerformanceEntry): void {
    const pause = nanoseconds(entry.duration);
    const kind = KIND_NAMES.get((entry as GcEntry).detail?.kind ?? 0) ?? 'Other';
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
