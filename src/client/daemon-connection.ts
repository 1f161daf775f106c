/**
 * Connects to a node: either one given by URL (`--rpc-url`, `--ws-url`, `--rest-url`,
 * `--consensus-url`, any host, any EVM JSON-RPC node for the eth methods) or, when no URL is
 * given, the daemon of a data directory, whose endpoints are in `daemon.json` and whose token is
 * in `auth.token`. URLs and a data directory are never mixed: once one URL is given, endpoints
 * not given by URL are absent, so a command never talks to two nodes.
 */
import type { DaemonEndpoints } from '../shared/daemon-info.js';
import { DaemonNotRunningError, InterfaceDisabledError, MissingEndpointError } from './errors.js';
import { readAuthToken, readLiveDaemonInfo } from './daemon-files.js';
import { HttpRpcClient } from './http-rpc-client.js';
import { RestClient } from './rest-client.js';
import type { WsRpcClient } from './ws-rpc-client.js';

/** Where a command finds its node. */
export interface NodeTarget {
  dataDir: string;
  /** Endpoints given by URL; any of them turns the data directory lookup off. */
  urls: Partial<DaemonEndpoints>;
  /** Bearer token for private methods; by default the data directory's `auth.token`. */
  token?: string;
  /** How long an HTTP request may stay unanswered (the clients' default when absent). */
  requestTimeoutMs?: number;
}

type EndpointName = keyof DaemonEndpoints;

/** The flag that gives each endpoint by URL, for messages. */
const URL_FLAGS: Record<EndpointName, string> = {
  http: '--rpc-url',
  ws: '--ws-url',
  consensusWs: '--consensus-url',
  rest: '--rest-url',
  metrics: '--metrics-url',
};

const INTERFACE_NAMES: Record<EndpointName, string> = {
  http: 'JSON-RPC interface is disabled',
  ws: 'WebSocket interface is disabled',
  consensusWs: 'consensus RPC interface is disabled',
  rest: 'REST interface is disabled (--no-rest.enable)',
  metrics: 'metrics listener is disabled (start it with --metrics.enable)',
};

interface ResolvedTarget {
  endpoint(name: EndpointName): string;
  token: string | undefined;
}

/** `needs` is the endpoint the command cannot do without, for the message when none is found. */
function resolveTarget(target: NodeTarget, needs: EndpointName): ResolvedTarget {
  const urls = Object.entries(target.urls).filter(([, url]) => url !== undefined);
  if (urls.length > 0) {
    return {
      token: target.token,
      endpoint: (name) => {
        const url = target.urls[name];
        if (url === undefined) throw new MissingEndpointError(URL_FLAGS[name]);
        return url;
      },
    };
  }
  const info = readLiveDaemonInfo(target.dataDir);
  if (!info) throw new DaemonNotRunningError(target.dataDir, URL_FLAGS[needs]);
  return {
    token: target.token ?? readAuthToken(target.dataDir),
    endpoint: (name) => {
      const url = info.endpoints[name];
      if (url === undefined) {
        throw new InterfaceDisabledError(target.dataDir, INTERFACE_NAMES[name], URL_FLAGS[name]);
      }
      return url;
    },
  };
}

export interface DaemonConnection {
  token: string | undefined;
  rpc: HttpRpcClient;
  /** Opens a WebSocket JSON-RPC connection (authenticated with the token). */
  openWs(): Promise<WsRpcClient>;
  close(): Promise<void>;
}

/**
 * JSON-RPC clients of the target node.
 *
 * @throws DaemonNotRunningError when no daemon runs in the data directory, InterfaceDisabledError
 * when its JSON-RPC interface is disabled; MissingEndpointError when URLs are given but not `--rpc-url`.
 */
export function connectDaemon(target: NodeTarget): DaemonConnection {
  const resolved = resolveTarget(target, 'http');
  const { token } = resolved;
  const rpc = new HttpRpcClient(resolved.endpoint('http'), {
    token,
    timeoutMs: target.requestTimeoutMs,
  });
  return {
    token,
    rpc,
    openWs: async () => {
      const url = resolved.endpoint('ws');
      // Loaded on use: most commands never open a socket, and ws is a sizeable module graph.
      const { WsRpcClient } = await import('./ws-rpc-client.js');
      return WsRpcClient.connect(url, { token, timeoutMs: target.requestTimeoutMs });
    },
    close: () => rpc.close(),
  };
}

/** A REST client of the target node, authenticated with its token. */
export function connectRest(target: NodeTarget): RestClient {
  const resolved = resolveTarget(target, 'rest');
  return new RestClient(resolved.endpoint('rest'), {
    token: resolved.token,
    timeoutMs: target.requestTimeoutMs,
  });
}

/** The URL of the target's consensus WebSocket (CometBFT-style, path `/websocket`). */
export function consensusUrl(target: NodeTarget): string {
  return resolveTarget(target, 'consensusWs').endpoint('consensusWs');
}
