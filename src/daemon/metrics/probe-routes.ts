/**
 * `GET /health` and `GET /ready` as answers of the hand-written HTTP server (`http-server.ts`),
 * shared by the JSON-RPC HTTP listener and the metrics listener.
 */
import type { HttpResponse } from '../transport/http-server.js';
import type { ReadinessProbe } from './readiness.js';

/** The answer to a probe path, or undefined when `path` is not one. */
export function probeResponse(path: string, probe: ReadinessProbe): HttpResponse | undefined {
  const bare = path.split('?', 1)[0];
  if (bare === '/health') {
    return { status: 200, body: JSON.stringify({ status: 'ok', uptimeSeconds: uptime() }) };
  }
  if (bare === '/ready') {
    const readiness = probe.check();
    return { status: readiness.ready ? 200 : 503, body: JSON.stringify(readiness) };
  }
  return undefined;
}

function uptime(): number {
  return Math.round(process.uptime());
}
