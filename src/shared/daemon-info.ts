/** The contents of `daemon.json`: how the CLI finds and describes a running daemon. */
export interface DaemonEndpoints {
  /** JSON-RPC over HTTP, e.g. `http://127.0.0.1:8545`; absent when JSON-RPC is disabled. */
  http?: string;
  /** JSON-RPC over WebSocket, e.g. `ws://127.0.0.1:8546`. */
  ws?: string;
  /** CometBFT-compatible consensus WebSocket, e.g. `ws://127.0.0.1:26657/websocket`. */
  consensusWs?: string;
  /** REST interface base, e.g. `http://127.0.0.1:1317/v1/api`. */
  rest?: string;
  /** The metrics listener (`/metrics`, `/health`, `/ready`), e.g. `http://127.0.0.1:6060`; only with `--metrics.enable`. */
  metrics?: string;
}

export interface DaemonInfo {
  pid: number;
  /** Kernel start time of the daemon process (Linux), so a reused pid is never taken for it. */
  processStartTime?: string;
  version: string;
  /** ISO timestamp of the start. */
  startedAt: string;
  dataDir: string;
  endpoints: DaemonEndpoints;
}

export function isDaemonInfo(value: unknown): value is DaemonInfo {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.pid === 'number' &&
    typeof record.version === 'string' &&
    typeof record.startedAt === 'string' &&
    typeof record.dataDir === 'string' &&
    typeof record.endpoints === 'object' &&
    record.endpoints !== null
  );
}
