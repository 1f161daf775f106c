/**
 * The readers of committed logs that the JSON-RPC layer serves from, built and closed together:
 * the log index, historical queries over it, and the polling filters.
 */
import { join } from 'node:path';
import type { Chain } from '../chain/chain.js';
import type { NodeConfig } from '../../shared/config/options.js';
import type { Logger } from '../logger.js';
import type { Pause } from '../time-slice.js';
import type { EventBus } from './event-bus.js';
import { LogIndex } from './log-index.js';
import { LogQuery } from './log-query.js';
import { ServedLogs, type LogSerialiser } from './served-logs.js';
import { PollingFilters } from './polling-filters.js';

export interface LogReadersOptions {
  chain: Chain;
  /** How a queried log becomes JSON-RPC text. */
  serialiseLog: LogSerialiser;
  bus: EventBus;
  /** The data directory; the index lives in its `log-index` folder. */
  dataDir: string;
  config: Pick<
    NodeConfig,
    | 'json-rpc.block-range-cap'
    | 'json-rpc.logs-cap'
    | 'json-rpc.filter-timeout'
    | 'json-rpc.max-filters'
    | 'json-rpc.filters-per-client'
  >;
  logger: Pick<Logger, 'error' | 'warn'>;
  /** Where indexing lets the event loop run. Default: never. */
  pause?: Pause;
}

export interface LogReaders {
  index: LogIndex;
  query: LogQuery;
  filters: PollingFilters;
  /** Drops the filters, then closes the index (after its writes in flight). */
  close(): Promise<void>;
}

/**
 * Opens the log index (catching up with the chain) and builds the query and filter services.
 * Open it before block production starts so polling filters see every block from the first.
 */
export async function openLogReaders(options: LogReadersOptions): Promise<LogReaders> {
  const { chain, bus, config, logger } = options;
  const index = await LogIndex.open({
    dir: join(options.dataDir, 'log-index'),
    chain,
    bus,
    onError: (error) => logger.error('log index: indexing failed', { error: String(error) }),
    onRebuild: (problem) =>
      logger.warn('log index damaged: deleting it and rebuilding it from the chain', { problem }),
    pause: options.pause,
  });
  const served = new ServedLogs(chain, options.serialiseLog);
  const stopRewinds = bus.onRewind(() => served.forget());
  const query = new LogQuery(
    chain,
    index,
    {
      blockRangeCap: config['json-rpc.block-range-cap'],
      logsCap: config['json-rpc.logs-cap'],
    },
    served,
  );
  const filters = new PollingFilters({
    bus,
    timeoutMs: config['json-rpc.filter-timeout'],
    maxFilters: config['json-rpc.max-filters'],
    maxPerClient: config['json-rpc.filters-per-client'],
  });
  return {
    index,
    query,
    filters,
    close: async () => {
      stopRewinds();
      filters.close();
      await index.close();
    },
  };
}
