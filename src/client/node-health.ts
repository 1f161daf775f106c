/**
 * Asks a running daemon whether it is producing blocks, through the consensus RPC's `health`
 * route (the daemon keeps that state in one place; `daemon status` shows it).
 */

/** `block_production` of the consensus RPC's `health` answer. */
export interface BlockProduction {
  producing: boolean;
  /** Why production stopped (the error of the failed commit); absent while producing. */
  reason?: string;
  since?: string;
  failed_attempts?: number;
  next_attempt?: string;
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
    const response = await fetch(healthUrl(consensusWs), {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    const body = (await response.json()) as { result?: { block_production?: BlockProduction } };
    return body.result?.block_production;
  } catch {
    return undefined;
  }
}
