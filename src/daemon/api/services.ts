/**
 * What the API modules are given: the node's parts, built once by the composition root
 * (`node.ts`). API modules read the node only through this.
 */
import type { DataDirLayout } from '../../shared/datadir-layout.js';
import type { Chain } from '../chain/chain.js';
import type { ChainReader } from '../chain/chain-reader.js';
import type { NodeConfig } from '../../shared/config/options.js';
import type { DevControl } from '../dev/dev-control.js';
import type { EventBus } from '../events/event-bus.js';
import type { LogReaders } from '../events/log-readers.js';
import type { DaemonLogger } from '../logger.js';
import type { AutomineAcknowledgement } from '../txpool/automine-acknowledgement.js';
import type { TxPoolApi } from '../txpool/types.js';
import type { FormatOptions } from './formatters.js';
import type { MetricsRecorder } from '../metrics/recorder.js';
import type { OsMemory } from '../os-memory.js';

/**
 * What methods that only read the committed chain are given: a reader, not the pool or the
 * producer, so their types say they change nothing.
 */
export interface ChainView {
  chain: ChainReader;
  format: FormatOptions;
}

export interface NodeServices {
  chain: Chain;
  pool: TxPoolApi;
  /** When a send may be answered: with automine, once its block is committed. */
  acknowledgement: Pick<AutomineAcknowledgement, 'settled'>;
  bus: EventBus;
  /** The log index, eth_getLogs queries and polling filters. */
  logs: LogReaders;
  /** The test controls of dev chains (served only when `--dev.methods` resolves true). */
  dev: DevControl;
  config: NodeConfig;
  layout: DataDirLayout;
  format: FormatOptions;
  logger: DaemonLogger;
  /** Where modules register readings of their own state (`metrics/recorder.ts`). */
  metrics: Pick<MetricsRecorder, 'read'>;
  /** The optional addon that hands memory back to the system (`../os-memory.ts`). */
  osMemory: OsMemory | undefined;
}
