/**
 * The metrics listener (`--metrics.address`, only with `--metrics.enable`): Prometheus text at
 * `/metrics`, and `/health` and `/ready` for probes that should not touch the JSON-RPC port.
 * Built on the same hand-written HTTP server and Host/Origin guard as the JSON-RPC listener.
 */
import type { HostPort } from '../../shared/config/option-parsers.js';
import type { Logger } from '../logger.js';
import { ListenerGuard, type BrowserPolicy } from '../transport/browser-guard.js';
import type { RunningServer } from '../transport/http-rpc-server.js';
import { createHttpServer, type HttpResponse } from '../transport/http-server.js';
import { endpointUrl, listen } from '../transport/listen.js';
import type { PrometheusRecorder } from './prometheus-recorder.js';
import { probeResponse } from './probe-routes.js';
import type { ReadinessProbe } from './readiness.js';

/** A scraper or two and some probes; more connections are refused with 503. */
const MAX_CONNECTIONS = 32;
const REQUEST_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 60_000;
/** GET requests carry no body; this bounds what a client may send anyway. */
const MAX_BODY_BYTES = 1024;
const MAX_HEADER_BYTES = 16 * 1024;
const MAX_BUFFERED_RESPONSE = 4 * 1024 * 1024;

/** Media type of the Prometheus text format, version 0.0.4. */
export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricsServerOptions {
  address: HostPort;
  browserPolicy: BrowserPolicy;
  recorder: PrometheusRecorder;
  probe: ReadinessProbe;
  logger: Logger;
}

function plain(status: number, text: string, headers?: Record<string, string>): HttpResponse {
  return { status, headers, contentType: 'text/plain; charset=utf-8', body: `${text}\n` };
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<RunningServer> {
  const { recorder, probe, logger } = options;
  const guard = new ListenerGuard(options.browserPolicy, options.address.host, 'GET, HEAD');
  const http = createHttpServer({
    limits: {
      maxHeaderSize: MAX_HEADER_BYTES,
      maxBodySize: MAX_BODY_BYTES,
      bodyLimitFlag: 'the metrics listener',
    },
    keepAliveTimeoutMs: IDLE_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    requestTimeoutFlag: 'the metrics listener',
    maxBufferedResponse: MAX_BUFFERED_RESPONSE,
    maxConnections: MAX_CONNECTIONS,
    overCapacity: plain(503, `too many connections: the metrics listener takes ${MAX_CONNECTIONS}`),
    onOverCapacity: () =>
      logger.warn('metrics connection refused: connection limit reached', {
        maxConnections: MAX_CONNECTIONS,
      }),
    refuse: (error) => plain(error.status, error.message),
    internalError: plain(500, 'internal error'),
    onHandlerError: (error) => logger.error('metrics request failed', { error: String(error) }),
    handle: async ({ head }) => {
      const refused = guard.checkRequest(head.headers);
      if (refused) return plain(refused.status, refused.message);
      if (head.method !== 'GET' && head.method !== 'HEAD') {
        return plain(405, `method ${head.method} not allowed: use GET`, { Allow: 'GET, HEAD' });
      }
      const probed = probeResponse(head.target, probe);
      if (probed !== undefined) return probed;
      if (head.target.split('?', 1)[0] !== '/metrics') {
        return plain(404, `no such path ${head.target}: try /metrics, /health or /ready`);
      }
      return { status: 200, contentType: PROMETHEUS_TEXT, body: await recorder.scrape() };
    },
  });
  const port = await listen(http.server, options.address, 'metrics.address');
  return {
    url: endpointUrl('http', options.address.host, port),
    listening: () => http.server.listening,
    close: () => http.close(),
  };
}
