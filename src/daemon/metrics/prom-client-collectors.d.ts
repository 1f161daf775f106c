/**
 * prom-client's default collectors one by one (`lib/metrics/<name>.js`, what its
 * `collectDefaultMetrics` calls in turn), so the node can leave out its GC collector: see
 * `process-metrics.ts`.
 */
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';

  const collect: (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;
  export default collect;
}
