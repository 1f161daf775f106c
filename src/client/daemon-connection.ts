/**
 * Connects to the daemon of a data directory: finds its endpoints in `daemon.json` and its
 * token in `auth.token`, so callers need nothing but the directory.
 */
import type { DaemonInfo } from '../shared/daemon-info.js';
import { DaemonNotRunningError } from './errors.js';
import { readAuthToken, readLiveDaemonInfo } from './daemon-files.js';
import { HttpRpcClient } from './http-rpc-client.js';
import { RestClient } from './rest-client.js';
import { WsRpcClient } from './ws-rpc-client.js';

export interface DaemonConnection {
  info: DaemonInfo;
  token: string | undefined;
  rpc: HttpRpcClient;
  /** Opens a WebSocket JSON-RPC connection (authenticated with the token). */
  openWs(): Promise<WsRpcClient>;
  close(): Promise<void>;
}

export function connectDaemon(dataDir: string): DaemonConnection {
  const info = readLiveDaemonInfo(dataDir);
  if (!info) throw new DaemonNotRunningError(dataDir);
  if (!info.endpoints.http)
    throw new DaemonNotRunningError(dataDir, 'its JSON-RPC interface is disabled');
  const token = readAuthToken(dataDir);
  const rpc = new HttpRpcClient(info.endpoints.http, { token });
  return {
    info,
    token,
    rpc,
    openWs: () => {
      if (!info.endpoints.ws)
        throw new DaemonNotRunningError(dataDir, 'its WebSocket interface is disabled');
      return WsRpcClient.connect(info.endpoints.ws, { token });
    },
    close: () => rpc.close(),
  };
}

/**
 * A REST client for the daemon of a data directory, authenticated with its token.
 *
 * @throws DaemonNotRunningError when no daemon runs there or its REST interface is disabled.
 */
export function connectRest(dataDir: string): RestClient {
  const info = readLiveDaemonInfo(dataDir);
  if (!info) throw new DaemonNotRunningError(dataDir);
  if (!info.endpoints.rest)
    throw new DaemonNotRunningError(dataDir, 'its REST interface is disabled (--no-rest.enable)');
  return new RestClient(info.endpoints.rest, { token: readAuthToken(dataDir) });
}
