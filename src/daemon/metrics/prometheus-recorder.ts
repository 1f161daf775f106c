/**
 * The recorder of a node run with `--metrics.enable`: prom-client metrics in a registry of the
 * node's own (with Node's process metrics, `process-metrics.ts`), served as Prometheus
 * text by `metrics-server.ts`. Every metric is listed in docs/metrics.md.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { registerProcessMetrics } from './process-metrics.js';
import { CallTally } from './call-tally.js';
import { admissionOutcome, ADMISSION_OUTCOMES, rpcOutcome } from './outcome-labels.js';
import { SOCKET_KINDS, type MetricsRecorder, type Reading, type SocketKind } from './recorder.js';

/** Prefix of the node's own metrics (the process metrics keep prom-client's names). */
const PREFIX = 'nodecli_';

/** Label value of a call whose method is not one the node knows: one series for all of them. */
export const UNKNOWN_METHOD_LABEL = 'unknown';
/** Label value of a message that is not a call (bad JSON, bad envelope, a refused batch). */
export const INVALID_CALL_LABEL = 'invalid';

/** Seconds: JSON-RPC calls answer in microseconds from memory and seconds for a heavy eth_call. */
const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
const BLOCK_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const TX_COUNT_BUCKETS = [0, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500];

export interface PrometheusRecorderOptions {
  /** Whether a method name is one the node knows (served, disabled or declared unsupported). */
  knownMethod(name: string): boolean;
  /** Clock for head age, in ms. */
  wallClock?: () => number;
}

export class PrometheusRecorder implements MetricsRecorder {
  readonly registry = new Registry();
  private readonly readings: Reading[] = [];
  private readonly calls = new CallTally(LATENCY_BUCKETS);
  private readonly blockSeconds: Histogram;
  private readonly blockTxs: Histogram;
  private readonly commitSeconds: Histogram;
  private readonly admissions: Counter<'outcome'>;
  private readonly slowConsumers: Counter<'socket'>;
  private readonly callTimeouts: Counter;
  private readonly restRequests: Counter<'route' | 'method' | 'status'>;
  private readonly restSeconds: Histogram<'route'>;

  constructor(private readonly options: PrometheusRecorderOptions) {
    const registers = [this.registry];
    const wallClock = options.wallClock ?? Date.now;
    registerProcessMetrics(this.registry);
    const calls = this.calls;
    new Counter({
      name: `${PREFIX}rpc_requests_total`,
      help: 'JSON-RPC calls answered, by method and outcome (success or the error code name).',
      labelNames: ['method', 'outcome'],
      registers,
      collect() {
        calls.fillCounter(this, rpcOutcome);
      },
    });
    this.registry.registerMetric(
      calls.histogram(
        `${PREFIX}rpc_request_duration_seconds`,
        'Time from a JSON-RPC call being read to its answer being ready, by method.',
      ),
    );
    this.blockSeconds = new Histogram({
      name: `${PREFIX}block_production_seconds`,
      help: 'Time to execute and commit a block, from proposal to commit.',
      buckets: BLOCK_SECONDS_BUCKETS,
      registers,
    });
    this.blockTxs = new Histogram({
      name: `${PREFIX}block_transactions`,
      help: 'Transactions per produced block.',
      buckets: TX_COUNT_BUCKETS,
      registers,
    });
    this.commitSeconds = new Histogram({
      name: `${PREFIX}database_commit_seconds`,
      help: "Time of a block's write transaction in the chain store (LMDB).",
      buckets: BLOCK_SECONDS_BUCKETS,
      registers,
    });
    this.admissions = new Counter({
      name: `${PREFIX}txpool_admissions_total`,
      help: 'Transactions offered to the pool, by outcome: accepted or the reason of the refusal.',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ADMISSION_OUTCOMES) this.admissions.labels(outcome).inc(0);
    this.slowConsumers = new Counter({
      name: `${PREFIX}ws_slow_consumers_dropped_total`,
      help: 'WebSocket clients disconnected for leaving too many notifications unread.',
      labelNames: ['socket'],
      registers,
    });
    for (const socket of SOCKET_KINDS) this.slowConsumers.labels(socket).inc(0);
    this.callTimeouts = new Counter({
      name: `${PREFIX}call_timeouts_total`,
      help: 'eth_call and eth_estimateGas jobs aborted for running past --json-rpc.evm-timeout.',
      registers,
    });
    this.restRequests = new Counter({
      name: `${PREFIX}rest_requests_total`,
      help: 'REST requests answered, by route pattern, HTTP method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.restSeconds = new Histogram({
      name: `${PREFIX}rest_request_duration_seconds`,
      help: 'Time to answer a REST request, by route pattern.',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.sampledGauges(wallClock);
  }

  now(): number {
    return performance.now();
  }

  rpcCall(method: string, errorCode: number | undefined, startedAt: number): void {
    const label =
      method === ''
        ? INVALID_CALL_LABEL
        : this.options.knownMethod(method)
          ? method
          : UNKNOWN_METHOD_LABEL;
    this.calls.record(label, errorCode, secondsSince(startedAt));
  }

  blockProduced(startedAt: number, txCount: number): void {
    this.blockSeconds.observe(secondsSince(startedAt));
    this.blockTxs.observe(txCount);
  }

  storeCommitted(startedAt: number): void {
    this.commitSeconds.observe(secondsSince(startedAt));
  }

  admission(refusal: unknown): void {
    this.admissions.labels(admissionOutcome(refusal)).inc();
  }

  slowConsumerDropped(socket: SocketKind): void {
    this.slowConsumers.labels(socket).inc();
  }

  callTimedOut(): void {
    this.callTimeouts.inc();
  }

  restRequest(route: string, method: string, status: number, seconds: number): void {
    this.restRequests.labels(route, method, String(status)).inc();
    this.restSeconds.labels(route).observe(seconds);
  }

  read(reading: Reading): void {
    this.readings.push(reading);
  }

  /** The Prometheus text of every metric. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  private readingsOf<M extends Reading['metric']>(
    metric: M,
  ): Array<Extract<Reading, { metric: M }>> {
    return this.readings.filter((r): r is Extract<Reading, { metric: M }> => r.metric === metric);
  }

  /** The gauges (and cache counters) whose values are read from the node at each scrape. */
  private sampledGauges(wallClock: () => number): void {
    const registers = [this.registry];
    const readings = <M extends Reading['metric']>(metric: M) => this.readingsOf(metric);
    new Gauge({
      name: `${PREFIX}head_block_number`,
      help: 'Number of the head block.',
      registers,
      collect() {
        for (const { read } of readings('head')) this.set(Number(read().number));
      },
    });
    new Gauge({
      name: `${PREFIX}head_age_seconds`,
      help: "Seconds since the head block's timestamp (whole seconds, as blocks carry them).",
      registers,
      collect() {
        for (const { read } of readings('head'))
          this.set(Math.max(0, wallClock() / 1000 - Number(read().timestampSeconds)));
      },
    });
    new Gauge({
      name: `${PREFIX}txpool_transactions`,
      help: 'Transactions in the pool: pending (executable) and queued (nonce gaps).',
      labelNames: ['state'],
      registers,
      collect() {
        for (const { read } of readings('pool')) {
          const { pending, queued } = read();
          this.labels('pending').set(pending);
          this.labels('queued').set(queued);
        }
      },
    });
    const perSocket = (metric: 'connections' | 'subscriptions') =>
      function collect(this: Gauge<'socket'>) {
        for (const reading of readings(metric)) this.labels(reading.socket).set(reading.read());
      };
    new Gauge({
      name: `${PREFIX}ws_connections`,
      help: 'Open WebSocket connections, by endpoint.',
      labelNames: ['socket'],
      registers,
      collect: perSocket('connections'),
    });
    new Gauge({
      name: `${PREFIX}ws_subscriptions`,
      help: 'Active subscriptions on WebSocket connections, by endpoint.',
      labelNames: ['socket'],
      registers,
      collect: perSocket('subscriptions'),
    });
    const single = (metric: 'call_queue' | 'database_bytes') =>
      function collect(this: Gauge) {
        for (const reading of readings(metric)) this.set(reading.read());
      };
    new Gauge({
      name: `${PREFIX}call_queue_depth`,
      help: 'eth_call and eth_estimateGas jobs waiting for a call thread.',
      registers,
      collect: single('call_queue'),
    });
    new Gauge({
      name: `${PREFIX}database_size_bytes`,
      help: 'Size of the chain store file on disk.',
      registers,
      collect: single('database_bytes'),
    });
    const cacheCounter = (name: string, help: string, field: 'hits' | 'misses') =>
      new Counter({
        name: `${PREFIX}${name}`,
        help,
        labelNames: ['cache'],
        registers,
        // The caches count for themselves; the counter shows their totals at each scrape.
        collect() {
          this.reset();
          for (const { read } of readings('caches')) {
            for (const [cache, counts] of Object.entries(read()))
              this.labels(cache).inc(counts[field]);
          }
        },
      });
    cacheCounter('cache_hits_total', 'Lookups answered from a cache of the main thread.', 'hits');
    cacheCounter(
      'cache_misses_total',
      'Lookups a cache of the main thread could not answer.',
      'misses',
    );
  }
}

function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
