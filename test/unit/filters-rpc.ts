/** The log, filter and subscription methods behind a real dispatcher, as the daemon serves them. */
import { ethFilterMethods } from '../../src/daemon/api/eth-filters.js';
import { ethLogMethods, serialiseLog } from '../../src/daemon/api/eth-logs.js';
import { ethSubscribeMethods } from '../../src/daemon/api/eth-subscribe.js';
import { NO_METRICS } from '../../src/daemon/metrics/recorder.js';
import { LogQuery } from '../../src/daemon/events/log-query.js';
import { ServedLogs } from '../../src/daemon/events/served-logs.js';
import { PollingFilters } from '../../src/daemon/events/polling-filters.js';
import { RpcDispatcher } from '../../src/daemon/rpc/dispatcher.js';
import { replyString } from '../../src/daemon/rpc/reply.js';
import {
  MethodRegistry,
  type CallContext,
  type RpcConnection,
} from '../../src/daemon/rpc/registry.js';
import type { LogChain } from './logs-fixtures.js';

export interface RpcReply {
  result?: unknown;
  error?: { code: number; message: string };
}

export interface FiltersRpc {
  filters: PollingFilters;
  call(method: string, params?: unknown[], context?: CallContext): Promise<RpcReply>;
  close(): void;
}

export const httpContext: CallContext = {
  transport: 'http',
  authenticated: false,
  loopback: true,
  remoteAddress: '127.0.0.1',
};

/** A WebSocket-like connection that records notifications and can be closed or made slow. */
export class RecordingConnection implements RpcConnection {
  private static next = 0;
  readonly id = `connection-${RecordingConnection.next++}`;
  readonly notifications: Array<{
    method: string;
    params: { subscription: string; result: unknown };
  }> = [];
  /** When false, notify reports the client as dropped (what the transport does to slow clients). */
  accepting = true;
  private readonly closeListeners: Array<() => void> = [];

  notify(method: string, paramsJson: string): boolean {
    if (!this.accepting) return false;
    this.notifications.push({
      method,
      params: JSON.parse(paramsJson) as { subscription: string; result: unknown },
    });
    return true;
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  close(): void {
    for (const listener of this.closeListeners.splice(0)) listener();
  }

  context(): CallContext {
    return { ...httpContext, transport: 'ws', connection: this };
  }
}

export function filtersRpc(
  logChain: LogChain,
  options: { timeoutMs?: number; ethereumCompat?: boolean } = {},
): FiltersRpc {
  const filters = new PollingFilters({
    bus: logChain.bus,
    timeoutMs: options.timeoutMs ?? 300_000,
    maxFilters: 10_000,
    maxPerClient: 1_000,
  });
  const logs = new LogQuery(
    logChain.chain,
    logChain.index,
    { blockRangeCap: 10_000, logsCap: 10_000 },
    new ServedLogs(logChain.chain, serialiseLog),
  );
  const services = {
    bus: logChain.bus,
    format: { ethereumCompat: options.ethereumCompat ?? false },
    metrics: NO_METRICS,
  };
  const registry = new MethodRegistry(new Set(['eth'])).register({
    namespace: 'eth',
    access: 'public',
    methods: [
      ...ethLogMethods(logs),
      ...ethFilterMethods(filters, logs),
      ...ethSubscribeMethods(services, { maxPerConnection: 256 }),
    ],
  });
  const silent = { error: () => undefined, debug: () => undefined };
  const dispatcher = new RpcDispatcher(
    registry,
    { batchRequestLimit: 100, batchResponseMaxSize: 100_000_000, maxNesting: 128 },
    silent,
  );
  let id = 0;
  return {
    filters,
    call: async (method, params = [], context = httpContext) => {
      const text = await dispatcher.handleText(
        JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        context,
      );
      return JSON.parse(replyString(text!)) as RpcReply;
    },
    close: () => filters.close(),
  };
}
