/**
 * The composition root of the daemon: takes the data directory, builds the node's parts and
 * starts its servers; `stop` takes them down in reverse order. Nothing else wires parts
 * together, so the order of start-up and shutdown is visible in one place.
 */
import { accessSync, constants, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DaemonEndpoints, DaemonInfo } from '../shared/daemon-info.js';
import type { DataDirLayout } from '../shared/datadir-layout.js';
import { PACKAGE_VERSION } from '../shared/version.js';
import { debugRuntimeMethods } from './api/debug-runtime.js';
import { minerNamespace } from './api/miner.js';
import { netNamespace } from './api/net.js';
import { UNSUPPORTED_METHODS } from './api/unsupported.js';
import { web3Namespace } from './api/web3.js';
import type { NodeConfig } from './config/options.js';
import { initCrypto } from './crypto/wasm-crypto.js';
import { writeFileAtomic } from './datadir/atomic-write.js';
import { AuthToken } from './datadir/auth-token.js';
import { ProcessLock } from './datadir/process-lock.js';
import { ServerError } from './errors.js';
import type { Logger } from './logger.js';
import { RpcDispatcher } from './rpc/dispatcher.js';
import { MethodRegistry, type NamespaceModule } from './rpc/registry.js';
import { startHttpRpcServer } from './transport/http-rpc-server.js';
import { startWsRpcServer } from './transport/ws-rpc-server.js';

export interface RunningNode {
  info: DaemonInfo;
  /** Graceful shutdown: stop accepting, finish work in flight, flush, release the data directory. */
  stop(): Promise<void>;
}

const DEFAULT_CHAIN_ID = 9000;
/** Unsent notification bytes a WebSocket client may accumulate before it is dropped. */
const WS_MAX_BACKLOG_BYTES = 16 * 1024 * 1024;

function prepareDataDir(layout: DataDirLayout): void {
  try {
    mkdirSync(dirname(layout.logFile), { recursive: true });
    accessSync(layout.root, constants.W_OK);
  } catch (error) {
    throw new ServerError(
      `data directory ${layout.root} is not writable: ${(error as Error).message}`,
    );
  }
}

function namespaceModules(config: NodeConfig): NamespaceModule[] {
  const chainId = config['chain-id'] ?? DEFAULT_CHAIN_ID;
  return [
    web3Namespace(PACKAGE_VERSION),
    netNamespace({ networkId: () => String(chainId), peerCount: () => 0 }),
    minerNamespace(),
    { namespace: 'debug', access: 'private', methods: debugRuntimeMethods },
  ];
}

export async function startNode(
  config: NodeConfig,
  layout: DataDirLayout,
  logger: Logger,
): Promise<RunningNode> {
  prepareDataDir(layout);
  const lock = ProcessLock.acquire(layout.lockFile);
  const shutdownSteps: Array<() => Promise<void> | void> = [() => lock.release()];
  const stop = async () => {
    for (const step of shutdownSteps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        logger.error('shutdown step failed', { error: String(error) });
      }
    }
  };

  try {
    await initCrypto();
    const token = AuthToken.createIn(layout.authTokenFile);
    const registry = new MethodRegistry(new Set(config['evm.rpc.api'])).declareUnsupported(
      UNSUPPORTED_METHODS,
    );
    for (const module of namespaceModules(config)) registry.register(module);
    const dispatcher = new RpcDispatcher(
      registry,
      {
        batchRequestLimit: config['json-rpc.batch-request-limit'],
        batchResponseMaxSize: config['json-rpc.batch-response-max-size'],
      },
      logger,
    );

    const endpoints: DaemonEndpoints = {};
    if (config['json-rpc.enable']) {
      const http = await startHttpRpcServer({
        address: config['json-rpc.address'],
        maxBodySize: config['json-rpc.max-body-size'],
        corsOrigins: config['json-rpc.cors'],
        token,
        dispatcher,
        logger,
      });
      shutdownSteps.push(() => http.close());
      endpoints.http = http.url;
      const ws = await startWsRpcServer({
        address: config['json-rpc.ws-address'],
        maxMessageSize: config['json-rpc.ws-max-message-size'],
        maxBacklogBytes: WS_MAX_BACKLOG_BYTES,
        token,
        dispatcher,
        logger,
      });
      shutdownSteps.push(() => ws.close());
      endpoints.ws = ws.url;
    }

    const info: DaemonInfo = {
      pid: process.pid,
      version: PACKAGE_VERSION,
      startedAt: new Date().toISOString(),
      dataDir: layout.root,
      endpoints,
    };
    writeFileAtomic(layout.daemonInfoFile, `${JSON.stringify(info, null, 2)}\n`);
    shutdownSteps.push(() => rmSync(layout.daemonInfoFile, { force: true }));
    logger.info('node started', { ...endpoints, methods: registry.servedMethods().length });
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
