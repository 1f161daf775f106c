/**
 * The figures of `node top`, read from the daemon's metrics listener (`/metrics`, see
 * docs/metrics.md): one {@link MetricsReading} per scrape, and rates between two of them.
 */
import { DaemonControlError } from './errors.js';
import { parsePrometheusText, type MetricFamily, type Sample } from './prometheus-text.js';
import { trustedFetch } from './tls-trust.js';

/** The levels `node top` shows as a scrape gives them. */
export interface NodeLevels {
  headHeight: number;
  headAgeSeconds: number;
  pending: number;
  queued: number;
  /** Open WebSocket connections, JSON-RPC and consensus together. */
  connections: number;
  subscriptions: number;
  residentBytes: number;
  heapUsedBytes: number;
}

/** What one scrape says, reduced to what `node top` shows. */
export interface MetricsReading extends NodeLevels {
  /** When it was taken, ms since the epoch. */
  at: number;
  blocks: number;
  transactions: number;
  requests: number;
  /** JSON-RPC latency histogram of every method together: upper bound → cumulative count. */
  latencyBuckets: ReadonlyMap<number, number>;
  cpuSeconds: number;
}

/** A screenful of `node top`: levels from the latest reading, rates since the one before. */
export interface TopFigures extends NodeLevels {
  /** Rates since the previous reading; undefined for the first. */
  blocksPerSecond?: number;
  txPerSecond?: number;
  requestsPerSecond?: number;
  /** 99th percentile JSON-RPC latency since the previous reading; undefined without calls. */
  p99Seconds?: number;
  /** CPU time used per second of wall time, in percent of one core. */
  cpuPercent?: number;
}

const FETCH_TIMEOUT_MS = 5_000;

function samplesOf(families: Map<string, MetricFamily>, name: string): Sample[] {
  const family = families.get(name);
  if (family !== undefined) return family.samples.filter((sample) => sample.name === name);
  // Histogram parts live in their family.
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return (families.get(base)?.samples ?? []).filter((sample) => sample.name === name);
}

function total(families: Map<string, MetricFamily>, name: string): number {
  return samplesOf(families, name).reduce((sum, sample) => sum + sample.value, 0);
}

function withLabel(families: Map<string, MetricFamily>, name: string, key: string, value: string) {
  return samplesOf(families, name)
    .filter((sample) => sample.labels[key] === value)
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Reduces a parsed scrape to the figures `node top` needs. */
export function readingOf(families: Map<string, MetricFamily>, at: number): MetricsReading {
  const latencyBuckets = new Map<number, number>();
  for (const bucket of samplesOf(families, 'nodecli_rpc_request_duration_seconds_bucket')) {
    const bound = bucket.labels.le === '+Inf' ? Infinity : Number(bucket.labels.le);
    latencyBuckets.set(bound, (latencyBuckets.get(bound) ?? 0) + bucket.value);
  }
  return {
    at,
    headHeight: total(families, 'nodecli_head_block_number'),
    headAgeSeconds: total(families, 'nodecli_head_age_seconds'),
    pending: withLabel(families, 'nodecli_txpool_transactions', 'state', 'pending'),
    queued: withLabel(families, 'nodecli_txpool_transactions', 'state', 'queued'),
    connections: total(families, 'nodecli_ws_connections'),
    subscriptions: total(families, 'nodecli_ws_subscriptions'),
    blocks: total(families, 'nodecli_block_transactions_count'),
    transactions: total(families, 'nodecli_block_transactions_sum'),
    requests: total(families, 'nodecli_rpc_requests_total'),
    latencyBuckets,
    residentBytes: total(families, 'process_resident_memory_bytes'),
    heapUsedBytes: total(families, 'nodejs_heap_size_used_bytes'),
    cpuSeconds: total(families, 'process_cpu_seconds_total'),
  };
}

/**
 * The `quantile` of the calls counted between two cumulative histograms, interpolated within
 * its bucket as Prometheus' `histogram_quantile` does; undefined when no call was counted.
 */
export function quantileBetween(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
  quantile: number,
): number | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
  const all = counts.at(-1) ?? 0;
  if (all <= 0) return undefined;
  const rank = quantile * all;
  const index = counts.findIndex((count) => count >= rank);
  const upper = bounds[index];
  const lower = index === 0 ? 0 : bounds[index - 1];
  // Past the largest finite bound nothing is known but that bound.
  if (upper === Infinity) return lower;
  const below = index === 0 ? 0 : counts[index - 1];
  const inBucket = counts[index] - below;
  return inBucket === 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
}

/** The figures of `current`, with rates since `previous` when there is one. */
export function topFigures(
  previous: MetricsReading | undefined,
  current: MetricsReading,
): TopFigures {
  const levels: TopFigures = {
    headHeight: current.headHeight,
    headAgeSeconds: current.headAgeSeconds,
    pending: current.pending,
    queued: current.queued,
    connections: current.connections,
    subscriptions: current.subscriptions,
    residentBytes: current.residentBytes,
    heapUsedBytes: current.heapUsedBytes,
  };
  const seconds = previous === undefined ? 0 : (current.at - previous.at) / 1000;
  if (previous === undefined || seconds <= 0) return levels;
  const rate = (field: 'blocks' | 'transactions' | 'requests' | 'cpuSeconds') =>
    Math.max(0, current[field] - previous[field]) / seconds;
  return {
    ...levels,
    blocksPerSecond: rate('blocks'),
    txPerSecond: rate('transactions'),
    requestsPerSecond: rate('requests'),
    p99Seconds: quantileBetween(previous.latencyBuckets, current.latencyBuckets, 0.99),
    cpuPercent: rate('cpuSeconds') * 100,
  };
}

/** Scrapes `url` (the listener's base or its `/metrics`) and reduces the answer. */
export async function fetchMetricsReading(url: string): Promise<MetricsReading> {
  const target = new URL(url);
  if (target.pathname === '/' || target.pathname === '') target.pathname = '/metrics';
  let text: string;
  try {
    const response = await trustedFetch(target, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    text = await response.text();
    if (!response.ok) throw new Error(`answered ${response.status}: ${text.trim()}`);
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new DaemonControlError(`cannot read the metrics at ${target.href}: ${cause}`);
  }
  return readingOf(parsePrometheusText(text), Date.now());
}
