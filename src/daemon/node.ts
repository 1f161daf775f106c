/**
 * The composition root of the daemon: takes the data directory, builds the node's parts and
 * starts its servers; `stop` takes them down in reverse order. Nothing else wires parts
 * together, so the order of start-up and shutdown is visible in one place.
 */
import { accessSync, constants, existsSync, mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import type { DaemonEndpoints, DaemonInfo } from '../shared/daemon-info.js';
import type { DataDirLayout } from '../shared/datadir-layout.js';
import { currentProcessIdentity } from '../shared/process-identity.js';
import { PACKAGE_VERSION } from '../shared/version.js';
import { AccountManager } from './accounts/account-manager.js';
import { KeyDerivationSlots } from './accounts/key-derivation-slots.js';
import { serialiseLog } from './api/eth-logs.js';
import { DEV_NAMESPACE } from './api/dev-methods.js';
import { accountSigning, namespaceModules } from './api/namespaces.js';
import type { NodeServices } from './api/services.js';
import { UNSUPPORTED_METHODS } from './api/unsupported.js';
import { releaseAfterHeavyWork, releaseMemory } from './heavy-work-release.js';
import { BURST_HEAP_GROWING_PERCENT, raiseHeapGrowth } from './heap-growth.js';
import { Chain } from './chain/chain.js';
import { ConsensusEngine } from './chain/consensus.js';
import { ProductionHealth } from './chain/production-health.js';
import { simulatedData } from './chain/simulate.js';
import { DEV_ADDRESSES } from './chain/genesis.js';
import { loadGenesis } from './chain/genesis-source.js';
import type { NodeConfig } from '../shared/config/options.js';
import { threadRecoveryBackend } from './crypto/signature-recovery.js';
import { initCrypto } from './crypto/wasm-crypto.js';
import {
  CallThreadPool,
  evmThreadCount,
  type CallQueueLimits,
} from './call-threads/call-thread-pool.js';
import { SenderRecovery } from './crypto/sender-recovery.js';
import { writeFileAtomic } from '../shared/atomic-write.js';
import { DevControl } from './dev/dev-control.js';
import { startConsensusRpcServer } from './consensus-rpc/server.js';
import { AuthToken } from './datadir/auth-token.js';
import { openNodeKey } from './datadir/node-key.js';
import { ProcessLock } from './datadir/process-lock.js';
import { ServerError } from '../shared/errors.js';
import { EventBus } from './events/event-bus.js';
import { openLogReaders } from './events/log-readers.js';
import type { DaemonLogger, Logger } from './logger.js';
import { logAdmission, logCommittedBlocks } from './log/node-events-log.js';
import { RpcDispatcher } from './rpc/dispatcher.js';
import { MethodRegistry } from './rpc/registry.js';
import { IdentityFunding } from './identity/identity-funding.js';
import { restResources } from './rest/resources.js';
import { RouteTable } from './rest/route-table.js';
import { loadChunkIo } from './storage/chunk-io.js';
import { StorageLayer } from './storage/storage-layer.js';
import { StorageMaintenance } from './storage/storage-maintenance.js';
import type { BrowserPolicy } from './transport/browser-guard.js';
import { loadOsMemory, type OsMemory } from './os-memory.js';
import { CALL_THREAD_ENTRY } from './thread-entries.js';
import { startHttpRpcServer } from './transport/http-rpc-server.js';
import { startWsRpcServer } from './transport/ws-rpc-server.js';
import { AutomineAcknowledgement } from './txpool/automine-acknowledgement.js';
import { PoolJournal } from './txpool/journal.js';
import { NO_METRICS, type MetricsRecorder } from './metrics/recorder.js';
import { PrometheusRecorder } from './metrics/prometheus-recorder.js';
import { ReadinessProbe } from './metrics/readiness.js';
import { startMetricsServer } from './metrics/metrics-server.js';
import { chainStoreBytes } from './metrics/chain-store-size.js';
import { DEFAULT_POOL_LIMITS, TxPool } from './txpool/txpool.js';
import { MAIN_THREAD_SLICE_MS, TimeSlicer } from './time-slice.js';

export interface RunningNode {
  info: DaemonInfo;
  /** Graceful shutdown: stop accepting, finish work in flight, flush, release the data directory. */
  stop(): Promise<void>;
}

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

/** Opens the chain and starts block production; returns the parts the API modules use. */
async function startChain(
  config: NodeConfig,
  layout: DataDirLayout,
  logger: DaemonLogger,
  shutdownSteps: Array<() => Promise<void> | void>,
  senderRecovery: SenderRecovery,
  production: ProductionHealth,
  metrics: MetricsRecorder,
  slicer: TimeSlicer,
): Promise<NodeServices> {
  const { pause } = slicer;
  const { genesis, custom, earlier } = loadGenesis(layout, config['chain-id']);
  const chain = await Chain.open({
    pause,
    dataDir: layout.root,
    genesis,
    earlierGeneses: earlier,
    callGasCap: BigInt(config['json-rpc.gas-cap']),
    minGasPrice: config['minimum-gas-prices'],
    onFlatStateBuilt: (built) =>
      logger.info('flat state tables built from the head state trie', {
        block: built.blockNumber.toString(),
        accounts: built.accounts,
        slots: built.slots,
        ms: built.milliseconds,
      }),
  });
  shutdownSteps.push(closing('chain store', () => chain.close(), logger));
  const bus = new EventBus({
    onListenerError: (error, channel) =>
      logger.error('event listener failed', { channel, error: String(error) }),
  });
  const journal = await PoolJournal.open(
    layout.txpoolJournalDir,
    config['txpool.journal-interval'],
    pause,
    ({ problem, movedTo }) =>
      logger.warn('transaction pool journal damaged: set aside, the pool starts empty', {
        problem,
        movedTo,
      }),
  );
  // Closed after block production stops, so the last block's removals reach it.
  shutdownSteps.push(() => journal.close());
  const logOutcome = logAdmission(logger);
  const pool = new TxPool({
    state: chain,
    chainId: chain.chainId,
    minGasPrice: chain.minGasPrice,
    limits: {
      ...DEFAULT_POOL_LIMITS,
      perSenderQueued: perSenderQueueLimit(config),
      globalSlots: config['txpool.globalslots'],
      priceBumpPercent: config['txpool.pricebump'],
      queuedLifetimeMs: config['txpool.lifetime'],
    },
    senderRecovery,
    journal,
    pause: slicer.pauseWhenSpent,
    onListenerError: (error) =>
      logger.error('pending transaction listener failed', { error: String(error) }),
    onAdmission: (outcome) => {
      logOutcome(outcome);
      metrics.admission(outcome.accepted ? undefined : outcome.error);
    },
  });
  pool.onPending((pooled) => bus.publishPendingTx(pooled));
  await restoreJournal(pool, journal, chain, logger);
  shutdownSteps.push(expireQueuedTransactions(pool, config['txpool.lifetime'], logger));
  const logs = await openLogReaders({
    chain,
    bus,
    dataDir: layout.root,
    config,
    logger,
    serialiseLog,
    pause,
  });
  shutdownSteps.push(() => logs.close());
  const engine = new ConsensusEngine({
    chain,
    pool,
    bus,
    health: production,
    blockTimeMs: config['block-time'],
    emptyBlocks: config['empty-blocks'],
    onRejected: ({ hashHex, reason }) =>
      logger.warn('transaction dropped at block time', { hash: hashHex, reason }),
    onRoundError: (error) =>
      logger.error('consensus round failed', { error: String((error as Error)?.stack ?? error) }),
    observer: metrics,
  });
  shutdownSteps.push(
    logCommittedBlocks({ onStep: (l) => engine.onStep(l), onBlock: (l) => bus.onBlock(l) }, logger),
  );
  chain.observeCommits(metrics);
  const acknowledgement = new AutomineAcknowledgement({
    automine: () => engine.miningMode().automine,
    isPending: (hashHex) => pool.isPending(hashHex),
    isPooled: (hashHex) => pool.getByHash(hashHex) !== undefined,
    onBlock: (listener) => bus.onBlock(listener),
    onRewind: (listener) => bus.onRewind(listener),
  });
  engine.start();
  shutdownSteps.push(closing('block production', () => engine.stop(), logger));
  shutdownSteps.push(() => acknowledgement.close());
  const dev = new DevControl({
    chain,
    engine,
    pool,
    bus,
    // Mining switched off by the dev methods is production stopped on purpose: readiness and
    // `daemon status` say so (`metrics/readiness.ts`).
    onMiningMode: ({ automine, intervalMs }) => {
      acknowledgement.miningModeChanged();
      if (automine || intervalMs > 0) production.startedByOperator('the dev mining methods');
      else production.stoppedByOperator('evm_setAutomine(false) with no mining interval');
    },
  });
  logger.info('chain opened', {
    chainId: chain.chainId,
    genesis: custom ? layout.genesisFile : 'embedded dev chain',
    head: chain.head().number,
    blockTime: `${config['block-time']}ms`,
  });
  return {
    chain,
    pool,
    acknowledgement,
    bus,
    logs,
    dev,
    config,
    layout,
    format: { ethereumCompat: config['json-rpc.ethereum-compat'] },
    logger,
    metrics,
    osMemory: loadOsMemory(config['os-memory-release'], logger),
  };
}

/**
 * Re-admits the journal's transactions (what the node accepted before it stopped or died) into
 * the pool, before blocks are made or requests served. Those refused against the head state,
 * most often because a block mined them before the journal heard of it, are dropped quietly.
 */
async function restoreJournal(
  pool: TxPool,
  journal: PoolJournal,
  chain: Chain,
  logger: Logger,
): Promise<void> {
  const { transactions: txs, unreadable } = journal.transactions(chain.common);
  if (unreadable.length > 0) {
    logger.warn('journaled transactions unreadable, dropped', { hashes: unreadable });
  }
  if (txs.length === 0) return;
  const refused = await pool.restore(txs);
  for (const { hashHex, reason } of refused) {
    logger.debug('journaled transaction not re-admitted', { hash: hashHex, reason });
  }
  logger.info('transaction pool restored from its journal', {
    restored: txs.length - refused.length,
    dropped: refused.length,
  });
}

/**
 * Starts the call threads (`call-threads/`) and has the chain's calls and gas estimates run on
 * them; they also serve sender recovery. They start on the first call or recovery and stop
 * after `--json-rpc.evm-idle` without either, or as soon as a burst of transactions is over
 * when no call came within that time; with it at 0 they start here, once the node
 * answers, so that the first answer does not wait for them (calls run on the main thread
 * meanwhile).
 */
async function startCallThreads(
  count: number,
  parts: {
    chain: Chain;
    bus: EventBus;
    txpool: NodeServices['pool'];
    senderRecovery: SenderRecovery;
    timeoutMs: number;
    idleMs: number;
    limits: CallQueueLimits;
    layout: DataDirLayout;
    os: OsMemory | undefined;
    logger: Logger;
    metrics: MetricsRecorder;
  },
  shutdownSteps: Array<() => Promise<void> | void>,
): Promise<void> {
  if (count === 0) return;
  const { chain } = parts;
  const pool = await CallThreadPool.start({
    count,
    entry: CALL_THREAD_ENTRY,
    data: {
      dataDir: parts.layout.root,
      sharedHead: chain.sharedHead.buffer,
      chain: chain.parameters,
    },
    local: {
      call: (request, blockNumber) => chain.runCallHere(request, blockNumber),
      estimateGas: (request, blockNumber) => chain.estimateGasHere(request, blockNumber),
      createAccessList: (request, blockNumber) => chain.createAccessListHere(request, blockNumber),
      simulate: (request, blockNumber) =>
        chain.simulateHere(request, blockNumber).then(simulatedData),
    },
    recovery: parts.senderRecovery,
    timeoutMs: parts.timeoutMs,
    limits: parts.limits,
    logger: parts.logger,
    onTimeout: () => parts.metrics.callTimedOut(),
    idleMs: parts.idleMs,
    onStopped: () => parts.os?.trimMalloc?.(),
  });
  parts.senderRecovery.whenWanted(() => pool.wake());
  // Answers are not counted here: only a burst's recoveries keep threads running for nothing.
  const afterBursts = releaseAfterHeavyWork({
    bus: parts.bus,
    pool: parts.txpool,
    release: () => pool.releaseAfterRecoveries(),
  });
  shutdownSteps.push(() => afterBursts.stop());
  chain.runCallsOn(pool);
  parts.metrics.read({ metric: 'call_queue', read: () => pool.queued });
  shutdownSteps.push(async () => {
    chain.runCallsOn(undefined);
    await pool.close();
  });
}

/**
 * The per-sender queue bound: as configured, else geth's 64, or none on a dev chain, where
 * deployment scripts and nonce managers send a sender's transactions in bursts whose batches
 * may arrive out of order (anvil has no such bound either).
 */
function perSenderQueueLimit(config: NodeConfig): number {
  return (
    config['txpool.accountqueue'] ??
    (config.dev ? Number.POSITIVE_INFINITY : DEFAULT_POOL_LIMITS.perSenderQueued)
  );
}

/** The head's number and timestamp, as readiness and the metrics read them. */
function headOf(chain: Chain): { number: bigint; timestampSeconds: bigint } {
  const head = chain.head();
  return { number: head.number, timestampSeconds: head.block.header.timestamp };
}

/**
 * Opens the storage layer (failing the uploads a stop interrupted and collecting their bytes)
 * and starts its scrubber and expiry collector; both stop before the index closes.
 */
async function startStorage(
  config: NodeConfig,
  layout: DataDirLayout,
  services: NodeServices,
  shutdownSteps: Array<() => Promise<void> | void>,
): Promise<StorageLayer> {
  const volumes = config['storage.volume'];
  const storage = await StorageLayer.open({
    indexDir: layout.storageIndexDir,
    volumes: volumes.length > 0 ? volumes : [layout.defaultStorageVolume],
    chunkSize: config['storage.chunk-size'],
    maxUploadSize: config['storage.max-upload-size'],
    uploadIdleTimeoutMs: config['storage.upload-idle-timeout'],
    publish: (event) => services.bus.publishStorage(event),
    logger: services.logger,
    chunkIo: loadChunkIo(services.logger),
  });
  shutdownSteps.push(() => storage.close());
  const maintenance = new StorageMaintenance(storage, {
    scrubRate: config['storage.scrub-rate'],
    collectIntervalMs: config['storage.collect-interval'],
    logger: services.logger,
  });
  maintenance.start();
  shutdownSteps.push(() => maintenance.stop());
  return storage;
}

/** How often the pool is swept for expired queued transactions at most (geth: every minute). */
const QUEUED_EXPIRY_SWEEP_MS = 60_000;

/**
 * Sweeps the pool for queued transactions past their lifetime, at least once per lifetime and at
 * most once a minute, and logs what it dropped. Returns the step that stops the sweeps.
 */
function expireQueuedTransactions(pool: TxPool, lifetimeMs: number, logger: Logger): () => void {
  const timer = setInterval(
    () => {
      pool.dropExpiredQueued().then(
        (dropped) => {
          if (dropped.length > 0) {
            logger.info('queued transactions expired', { count: dropped.length, lifetimeMs });
          }
        },
        (error: unknown) =>
          logger.error('expiring queued transactions failed', { error: String(error) }),
      );
    },
    Math.min(QUEUED_EXPIRY_SWEEP_MS, lifetimeMs),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** A shutdown step that logs once it is done, so a slow or stuck shutdown shows where it is. */
function closing(
  what: string,
  close: () => Promise<void> | void,
  logger: Logger,
): () => Promise<void> {
  return async () => {
    await close();
    logger.info(`${what} closed`);
  };
}

/** Says which signature recovery this thread uses, loading it if nothing has needed it yet. */
function logRecoveryBackend(logger: Logger): void {
  const backend = threadRecoveryBackend();
  logger.info('signature recovery', {
    backend: backend.name,
    ...(backend.name === 'wasm' && { nativeUnavailable: backend.nativeError }),
  });
}

export async function startNode(
  config: NodeConfig,
  layout: DataDirLayout,
  logger: DaemonLogger,
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
    const evmThreads = config['json-rpc.enable']
      ? evmThreadCount(config['json-rpc.evm-threads'], availableParallelism())
      : 0;
    const senderRecovery = new SenderRecovery({
      // Resolved against this module, which sits beside the daemon bundle's entry, so the URL
      // names the same compiled worker whether or not the daemon runs bundled.
      workerUrl: new URL('./crypto/recovery-worker.js', import.meta.url),
      // Call threads serve recoveries themselves (each lends it a port when it starts).
      threads: evmThreads > 0 ? 0 : undefined,
      onWorkerError: (error) =>
        logger.error('sender recovery worker failed; recovering in-process', {
          error: String(error),
        }),
    });
    shutdownSteps.push(() => senderRecovery.close());
    const production = new ProductionHealth(logger);
    // The dev namespace is governed by --dev.methods (its methods refuse when it is off).
    const registry = new MethodRegistry(
      new Set([...config['evm.rpc.api'], DEV_NAMESPACE]),
    ).declareUnsupported(UNSUPPORTED_METHODS);
    const prometheus = config['metrics.enable']
      ? new PrometheusRecorder({ knownMethod: (name) => registry.knows(name) })
      : undefined;
    const metrics = prometheus ?? NO_METRICS;
    // One budget for the main thread's long work: block production, admissions, batches.
    const slicer = new TimeSlicer(MAIN_THREAD_SLICE_MS);
    const { pause } = slicer;
    const services = await startChain(
      config,
      layout,
      logger,
      shutdownSteps,
      senderRecovery,
      production,
      metrics,
      slicer,
    );
    const probe = new ReadinessProbe({
      chain: {
        isOpen: () => services.chain.isOpen(),
        head: () => headOf(services.chain),
      },
      production: () => production.state(),
      blockTimeMs: config['block-time'],
      emptyBlocks: config['empty-blocks'],
      maxHeadAgeBlocks: config['health.max-head-age-blocks'],
    });
    metrics.read({ metric: 'head', read: () => headOf(services.chain) });
    metrics.read({ metric: 'pool', read: () => services.pool.status() });
    metrics.read({ metric: 'caches', read: () => services.chain.cacheCounts() });
    metrics.read({ metric: 'database_bytes', read: () => chainStoreBytes(layout.root) });
    const storage = await startStorage(config, layout, services, shutdownSteps);
    const accounts = new AccountManager({
      keystoreDir: layout.keystoreDir,
      walletsDir: layout.walletsDir,
      dev: config.dev,
      lightKdf: config['keystore.light-kdf'],
      derivations: new KeyDerivationSlots({
        concurrency: config['keystore.kdf-concurrency'],
        queue: config['keystore.kdf-queue'],
      }),
      logger,
    });
    shutdownSteps.push(() => accounts.close());
    const nodeKey = await openNodeKey(layout.nodeKeyFile, {
      passwordFile: config['node-key.password-file'],
      kdf: config['keystore.light-kdf'] ? 'light' : 'standard',
    });
    const signing = accountSigning(services, accounts);
    for (const module of namespaceModules(services, accounts, nodeKey, signing)) {
      registry.register(module);
    }
    const dispatcher = new RpcDispatcher(
      registry,
      {
        batchRequestLimit: config['json-rpc.batch-request-limit'],
        batchResponseMaxSize: config['json-rpc.batch-response-max-size'],
        maxNesting: config['json-rpc.max-nesting'],
      },
      logger,
      metrics,
      pause,
    );
    const os = services.osMemory;
    const afterHeavyWork = releaseAfterHeavyWork({
      bus: services.bus,
      pool: services.pool,
      logger,
      release: releaseMemory({ os }),
      busy: () => dispatcher.inFlight > 0,
      raiseHeapGrowth: () => raiseHeapGrowth(BURST_HEAP_GROWING_PERCENT),
    });
    dispatcher.onResult((chars) => afterHeavyWork.answered(chars));
    shutdownSteps.push(() => afterHeavyWork.stop());

    const endpoints: DaemonEndpoints = {};
    const browserPolicy: BrowserPolicy = {
      vhosts: config['json-rpc.vhosts'],
      corsOrigins: config['json-rpc.cors'],
      wsOrigins: config['json-rpc.ws-origins'],
    };
    if (config['json-rpc.enable']) {
      const http = await startHttpRpcServer({
        address: config['json-rpc.address'],
        limits: {
          maxBodySize: config['json-rpc.max-body-size'],
          maxConnections: config['json-rpc.max-connections'],
          readTimeoutMs: config['json-rpc.read-timeout'],
          idleTimeoutMs: config['json-rpc.idle-timeout'],
          maxBufferedResponse: config['json-rpc.max-buffered-response'],
        },
        browserPolicy,
        token,
        dispatcher,
        logger,
        probe,
      });
      shutdownSteps.push(closing('JSON-RPC HTTP listener', () => http.close(), logger));
      endpoints.http = http.url;
      probe.addListener('json-rpc http', http.listening);
      const ws = await startWsRpcServer({
        address: config['json-rpc.ws-address'],
        maxMessageSize: config['json-rpc.ws-max-message-size'],
        maxBacklogBytes: WS_MAX_BACKLOG_BYTES,
        browserPolicy,
        maxConnections: config['json-rpc.max-connections'],
        readTimeoutMs: config['json-rpc.read-timeout'],
        token,
        dispatcher,
        logger,
        onSlowConsumer: () => metrics.slowConsumerDropped('json_rpc'),
      });
      shutdownSteps.push(closing('JSON-RPC WebSocket listener', () => ws.close(), logger));
      endpoints.ws = ws.url;
      probe.addListener('json-rpc ws', ws.listening);
      metrics.read({ metric: 'connections', socket: 'json_rpc', read: ws.connections });
    }
    const consensusRpc = await startConsensusRpcServer({
      address: config['rpc.laddr'],
      chain: services.chain,
      bus: services.bus,
      validatorKey: nodeKey,
      maxClients: config['rpc.max-subscription-clients'],
      maxSubscriptionsPerClient: config['rpc.max-subscriptions-per-client'],
      maxBacklogBytes: WS_MAX_BACKLOG_BYTES,
      browserPolicy,
      queryLimits: {
        maxLength: config['rpc.max-query-length'],
        maxConditions: config['rpc.max-query-conditions'],
      },
      limits: {
        maxBodyBytes: config['rpc.max-body-bytes'],
        maxNesting: config['rpc.max-nesting'],
        batchRequestLimit: config['rpc.batch-request-limit'],
        batchResponseMaxSize: config['rpc.batch-response-max-size'],
        maxConnections: config['rpc.max-open-connections'],
        readTimeoutMs: config['rpc.read-timeout'],
      },
      production: () => production.state(),
      logger,
      onSlowConsumer: () => metrics.slowConsumerDropped('consensus'),
    });
    shutdownSteps.push(closing('consensus RPC listener', () => consensusRpc.close(), logger));
    endpoints.consensusWs = consensusRpc.websocketUrl;
    probe.addListener('consensus rpc', consensusRpc.listening);
    metrics.read({ metric: 'connections', socket: 'consensus', read: consensusRpc.connections });
    metrics.read({
      metric: 'subscriptions',
      socket: 'consensus',
      read: consensusRpc.subscriptions,
    });
    if (config['rest.enable']) {
      const routeTable = new RouteTable();
      // Loaded only by a node that serves REST: fastify and its plugins take about 20 ms of a
      // start to load on a slow machine (docs/benchmarks.md).
      const { startRestServer } = await import('./rest/server.js');
      const rest = await startRestServer({
        address: config['rest.address'],
        maxBodySize: config['rest.max-body-size'],
        expensiveRate: config['rest.expensive-rate'],
        maxConnections: config['rest.max-connections'],
        readTimeoutMs: config['rest.read-timeout'],
        browserPolicy,
        token,
        resources: restResources({
          bus: services.bus,
          chain: services.chain,
          dataDir: layout.root,
          signer: signing.signer,
          identityKey: nodeKey,
          identityFunding: new IdentityFunding({
            enabled: config.dev && !existsSync(layout.genesisFile),
            identity: nodeKey,
            funder: DEV_ADDRESSES[DEV_ADDRESSES.length - 1],
            balanceAtHead: (address) => services.chain.getBalance(address),
            send: (fields) => signing.signer.sendWithUnlockedKey(fields),
            bus: services.bus,
          }),
          routeTable,
          wsMaxBacklogBytes: WS_MAX_BACKLOG_BYTES,
          storage: {
            storage,
            defaultRedundancy: config['storage.redundancy'],
            maxContentSize: config['storage.max-content-size'],
            downloadIdleTimeoutMs: config['storage.download-idle-timeout'],
            logger,
          },
        }),
        routeTable,
        logger,
        metrics: prometheus,
      });
      shutdownSteps.push(closing('REST listener', () => rest.close(), logger));
      endpoints.rest = rest.url;
      probe.addListener('rest', rest.listening);
    }
    if (prometheus !== undefined) {
      const server = await startMetricsServer({
        address: config['metrics.address'],
        browserPolicy,
        recorder: prometheus,
        probe,
        logger,
      });
      shutdownSteps.push(() => server.close());
      endpoints.metrics = server.url;
      probe.addListener('metrics', server.listening);
    }
    await startCallThreads(
      evmThreads,
      {
        chain: services.chain,
        bus: services.bus,
        txpool: services.pool,
        senderRecovery,
        timeoutMs: config['json-rpc.evm-timeout'],
        idleMs: config['json-rpc.evm-idle'],
        os,
        limits: {
          maxQueued: config['json-rpc.evm-queue'],
          maxPerCaller: config['json-rpc.evm-queue-per-client'],
        },
        layout,
        logger,
        metrics,
      },
      shutdownSteps,
    );

    const identity = currentProcessIdentity();
    const info: DaemonInfo = {
      pid: identity.pid,
      processStartTime: identity.startTime,
      version: PACKAGE_VERSION,
      startedAt: new Date().toISOString(),
      dataDir: layout.root,
      endpoints,
    };
    writeFileAtomic(layout.daemonInfoFile, `${JSON.stringify(info, null, 2)}\n`);
    shutdownSteps.push(() => rmSync(layout.daemonInfoFile, { force: true }));
    logger.info('node started', { ...endpoints, methods: registry.servedMethods().length });
    // After the requests waiting for the listeners: the first answers need no recovery.
    const announced = setImmediate(logRecoveryBackend, logger);
    shutdownSteps.push(() => clearImmediate(announced));
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
