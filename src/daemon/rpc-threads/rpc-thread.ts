/**
 * Entry of a JSON-RPC thread (see `rpc-thread-pool.ts`). It serves JSON-RPC over HTTP on its
 * own socket of the shared address, answers reads of the committed chain itself, from a
 * `ChainReader` that follows the block producer's head, and passes every other call to the main
 * thread, whose dispatcher answers it as it would answer its own connections.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ethChainMethods } from '../api/eth.js';
import { FeeOracle } from '../api/fee-oracle.js';
import { netNamespace } from '../api/net.js';
import { web3Namespace } from '../api/web3.js';
import { ChainReader } from '../chain/chain-reader.js';
import { AuthToken } from '../datadir/auth-token.js';
import { createLogger } from '../logger.js';
import { RpcDispatcher, type CallReply, type ForwardedCall } from '../rpc/dispatcher.js';
import { MethodRegistry } from '../rpc/registry.js';
import { startHttpRpcServer } from '../transport/http-rpc-server.js';
import { joinShared } from '../transport/shared-listen.js';
import type { MainMessage, RpcThreadData, ThreadMessage } from './protocol.js';

/**
 * Caches of a thread's reader: it serves single blocks and receipts, not `eth_getLogs` (which
 * runs on the main thread beside the log index), so a few recent blocks are enough.
 */
const THREAD_CACHE_BYTES = { blocks: 4 * 2 ** 20, receipts: 4 * 2 ** 20 };

const data = workerData as RpcThreadData;
const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);
const { config } = data;
const logger = createLogger(config['log-level']);

/** Calls waiting for the main thread's reply, by id. */
const waiting = new Map<number, (reply: CallReply) => void>();
let nextCallId = 0;
const forward = (call: ForwardedCall): Promise<CallReply> =>
  new Promise((resolve) => {
    const id = nextCallId++;
    waiting.set(id, resolve);
    post({ type: 'call', id, call });
  });

const chain = await ChainReader.openFollower({
  dataDir: data.dataDir,
  parameters: data.chain,
  sharedHead: data.sharedHead,
  cacheBytes: THREAD_CACHE_BYTES,
});
const registry = new MethodRegistry(new Set(config['evm.rpc.api']))
  .register(web3Namespace(data.packageVersion))
  .register(netNamespace({ networkId: () => data.chain.chainId.toString(), peerCount: () => 0 }))
  .register({
    namespace: 'eth',
    access: 'public',
    methods: ethChainMethods(
      { chain, format: { ethereumCompat: config['json-rpc.ethereum-compat'] } },
      new FeeOracle(chain),
    ),
  });
const dispatcher = new RpcDispatcher(
  registry,
  {
    batchRequestLimit: config['json-rpc.batch-request-limit'],
    batchResponseMaxSize: config['json-rpc.batch-response-max-size'],
  },
  logger,
  forward,
);
const http = await startHttpRpcServer({
  address: { host: data.listen.ip, port: data.listen.port },
  maxBodySize: config['json-rpc.max-body-size'],
  corsOrigins: config['json-rpc.cors'],
  token: AuthToken.of(data.token),
  dispatcher,
  logger,
  bind: async (server) => {
    await joinShared(server, data.listen);
    return data.listen.port;
  },
});

port.on('message', (message: MainMessage) => {
  if (message.type === 'reply') {
    waiting.get(message.id)?.(message.reply);
    waiting.delete(message.id);
  } else {
    void http
      .close()
      .then(() => chain.close())
      .finally(() => post({ type: 'closed' }));
  }
});
post({ type: 'listening' });
