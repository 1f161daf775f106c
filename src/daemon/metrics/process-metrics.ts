/**
 * Node's process metrics, as prom-client's `collectDefaultMetrics` gives them, except that
 * `nodejs_gc_duration_seconds` is filled from the process's one GC monitor: prom-client's own
 * GC collector adds a second `PerformanceObserver`, which cost 6–8% of read throughput at
 * 90 000 requests a second (docs/metrics.md), where one listener more on the existing observer
 * costs nothing measurable.
 */
import { constants } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';
import eventLoopLag from 'prom-client/lib/metrics/eventLoopLag.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';
import { processGcMonitor } from '../diagnostics/gc-monitor.js';

const COLLECTORS = [
  processCpuTotal,
  processStartTime,
  osMemoryHeap,
  processOpenFileDescriptors,
  processMaxFileDescriptors,
  eventLoopLag,
  processResources,
  processHandles,
  processRequests,
  heapSizeAndUsed,
  heapSpacesSizeAndUsed,
  version,
];

/** prom-client's names of V8's collectors, as its GC collector labels them. */
const GC_KINDS: ReadonlyMap<number, string> = new Map([
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

export function registerProcessMetrics(registry: Registry): void {
  for (const collect of COLLECTORS) collect(registry, { eventLoopMonitoringPrecision: 10 });
  const gcSeconds = new Histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'],
    buckets: [0.001, 0.01, 0.1, 1, 2, 5],
    registers: [registry],
  });
  processGcMonitor().listen((collector, seconds) =>
    gcSeconds.labels(GC_KINDS.get(collector) ?? 'other').observe(seconds),
  );
}
