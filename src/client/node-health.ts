/**
 * Asks a running daemon how it is: its readiness checks (`GET /ready` on the JSON-RPC HTTP
 * listener or the metrics listener) and whether it is producing blocks (the consensus RPC's
 * `health` route). `daemon status` shows both.
 */
import { isReadiness, type Readiness } from '../shared/readiness.js';
import { trustedFetch } from './tls-trust.js';

/** `block_production` of the consensus RPC's `health` answer, as the wire spells it. */
interface WireBlockProduction {
  producing: boolean;
  reason?: string;
  since?: string;
  failed_attempts?: number;
  next_attempt?: string;
}

/** Whether the daemon produces blocks; the rest only while it does not. */
export interface BlockProduction {
  producing: boolean;
  /** Why production stopped (the error of the first failed commit). */
  reason?: string;
  /** ISO time of the first failed commit. */
  since?: string;
  failedAttempts?: number;
  /** ISO time of the next attempt. */
  nextAttempt?: string;
}

/** How long `daemon status` waits for the answer before it reports the state as unknown. */
const HEALTH_TIMEOUT_MS = 2_000;

/** `ws://host:port/websocket` (daemon.json's `consensusWs`) to `http://host:port/health`. */
function healthUrl(consensusWs: string): string {
  const url = new URL(consensusWs);
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  url.pathname = '/health';
  return url.toString();
}

/** The daemon's block production state, or undefined when it did not answer in time. */
export async function fetchBlockProduction(
  consensusWs: string,
): Promise<BlockProduction | undefined> {
  try {
    const response = await trustedFetch(healthUrl(consensusWs), {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    const body = (await response.json()) as {
      result?: { block_production?: WireBlockProduction };
    };
    const wire = body.result?.block_production;
    if (wire === undefined) return undefined;
    return {
      producing: wire.producing,
      reason: wire.reason,
      since: wire.since,
      failedAttempts: wire.failed_attempts,
      nextAttempt: wire.next_attempt,
    };
  } catch {
    return undefined;
  }
}

/**
 * The readiness checks of the daemon at `baseUrl` (a listener that serves `/ready`), or
 * undefined when it did not answer them in time.
 */
export async function fetchReadiness(baseUrl: string): Promise<Readiness | undefined> {
  try {
    const response = await trustedFetch(new URL('/ready', baseUrl), {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    const body: unknown = await response.json();
    return isReadiness(body) ? body : undefined;
  } catch {
    return undefined;
  }
}
