/**
 * Polling filters (`eth_newFilter`, `eth_newBlockFilter`, `eth_newPendingTransactionFilter`,
 * polled with `eth_getFilterChanges`).
 *
 * Why it is shaped this way:
 * - Fed by the event bus: one listener per channel for all filters, which appends what each
 *   filter selects to that filter's buffer; a poll hands the buffer over and empties it.
 *   Nothing reads the database on a timer.
 * - A filter nobody polls for `timeoutMs` is removed (geth's behaviour; default five minutes),
 *   so abandoned filters do not collect events forever. Each filter has one unref'd timer that a
 *   poll restarts; timers never keep the process alive.
 * - Ids are 16 random bytes as a hex quantity, like geth's, so they are not guessable.
 * - The node holds at most `maxFilters` of them, and one client at most `maxPerClient` (a client
 *   is what the API layer says: a WebSocket connection, or a remote address over HTTP), so
 *   nobody can make the node keep an unbounded number of buffers, timers and matchers, or
 *   make each block's delivery loop over them. A filter outlives the connection that made it
 *   (any caller that knows the id may poll it, as in geth) and counts against its maker until
 *   it is removed or expires.
 * - Filter types carry geth's numbering (`filters.Type`) because the spec's error for
 *   `eth_getFilterLogs` on a non-log filter prints that number.
 */
import { randomBytes } from 'node:crypto';
import type { ChainLog, StoredBlock } from '../chain/types.js';
import { LimitExceededError, NotFoundError } from '../../shared/errors.js';
import type { PooledTransaction } from '../txpool/types.js';
import { rewoundLogs } from './event-bus.js';
import type { BlockCommittedEvent, ChainRewoundEvent, EventBus, Unsubscribe } from './event-bus.js';
import { logMatcher, type LogFilter } from './log-filter.js';

/** geth's `filters.Type` values of the filter kinds this node serves. */
export const FilterType = {
  logs: 1,
  pendingTransactions: 4,
  blocks: 5,
} as const;

export type FilterTypeNumber = (typeof FilterType)[keyof typeof FilterType];

/** What a poll returns: logs for a log filter, hashes (0x-hex) for block and pending filters. */
export type FilterChanges =
  { kind: 'logs'; logs: ChainLog[] } | { kind: 'hashes'; hashes: string[] };

export interface PollingFiltersOptions {
  bus: EventBus;
  /** Idle time (ms) after which an unpolled filter is removed (`json-rpc.filter-timeout`). */
  timeoutMs: number;
  /** Most filters installed at once (`json-rpc.max-filters`). */
  maxFilters: number;
  /** Most filters installed at once by one client (`json-rpc.filters-per-client`). */
  maxPerClient: number;
}

type InstalledFilter =
  | {
      type: typeof FilterType.logs;
      filter: LogFilter;
      matches: (log: ChainLog) => boolean;
      logs: ChainLog[];
      expiry: NodeJS.Timeout;
      owner: string;
    }
  | {
      type: typeof FilterType.blocks | typeof FilterType.pendingTransactions;
      hashes: string[];
      expiry: NodeJS.Timeout;
      owner: string;
    };

const NUMBER = /^0x[0-9a-fA-F]+$/;

/** geth's rpc.ID: random bytes in hex without leading zeros. */
export function newFilterId(): string {
  const digits = randomBytes(16).toString('hex').replace(/^0+/, '');
  return `0x${digits === '' ? '0' : digits}`;
}

/** Whether a block falls inside a filter's numeric bounds (tags are open bounds for new blocks). */
function withinRange(filter: LogFilter, block: StoredBlock): boolean {
  if (filter.kind === 'block') return block.hashHex === filter.blockHash;
  const number = block.number;
  if (NUMBER.test(filter.fromBlock) && number < BigInt(filter.fromBlock)) return false;
  if (NUMBER.test(filter.toBlock) && number > BigInt(filter.toBlock)) return false;
  return true;
}

export class PollingFilters {
  private readonly filters = new Map<string, InstalledFilter>();
  /** Installed filters per client, for `maxPerClient`; a client with none has no entry. */
  private readonly perClient = new Map<string, number>();
  private readonly unsubscribes: Unsubscribe[];

  constructor(private readonly options: PollingFiltersOptions) {
    this.unsubscribes = [
      options.bus.onBlock((event) => this.onBlock(event)),
      options.bus.onPendingTx((tx) => this.onPendingTx(tx)),
      options.bus.onRewind((event) => this.onRewind(event)),
    ];
  }

  /**
   * Installs a log filter for client `owner`; the other `install…` methods alike.
   *
   * @throws LimitExceededError when the node or `owner` holds as many filters as allowed.
   */
  installLogFilter(filter: LogFilter, owner: string): string {
    return this.install(owner, (id) => ({
      type: FilterType.logs,
      filter,
      matches: logMatcher(filter.criteria),
      logs: [],
      expiry: this.expiryTimer(id),
      owner,
    }));
  }

  installBlockFilter(owner: string): string {
    return this.install(owner, (id) => ({
      type: FilterType.blocks,
      hashes: [],
      expiry: this.expiryTimer(id),
      owner,
    }));
  }

  installPendingTransactionFilter(owner: string): string {
    return this.install(owner, (id) => ({
      type: FilterType.pendingTransactions,
      hashes: [],
      expiry: this.expiryTimer(id),
      owner,
    }));
  }

  /** What arrived since the last poll; restarts the filter's idle timer. */
  changes(id: string): FilterChanges {
    const installed = this.require(id);
    installed.expiry.refresh();
    if (installed.type === FilterType.logs) {
      const logs = installed.logs;
      installed.logs = [];
      return { kind: 'logs', logs };
    }
    const hashes = installed.hashes;
    installed.hashes = [];
    return { kind: 'hashes', hashes };
  }

  /** The criteria of a log filter. Fails with the spec's message for block and pending filters. */
  logFilter(id: string): LogFilter {
    const installed = this.require(id);
    if (installed.type !== FilterType.logs) {
      throw new NotFoundError(
        `filter ${id} doesn't have a LogsSubscription type: got ${installed.type}`,
      );
    }
    return installed.filter;
  }

  /** Removes a filter; false when there was none with this id. */
  uninstall(id: string): boolean {
    const key = id.toLowerCase();
    const installed = this.filters.get(key);
    if (installed === undefined) return false;
    clearTimeout(installed.expiry);
    this.filters.delete(key);
    const left = (this.perClient.get(installed.owner) ?? 1) - 1;
    if (left > 0) this.perClient.set(installed.owner, left);
    else this.perClient.delete(installed.owner);
    return true;
  }

  /** Number of installed filters. */
  get size(): number {
    return this.filters.size;
  }

  /** Stops listening to the bus and drops every filter. */
  close(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    for (const installed of this.filters.values()) clearTimeout(installed.expiry);
    this.filters.clear();
    this.perClient.clear();
  }

  private install(owner: string, make: (id: string) => InstalledFilter): string {
    const { maxFilters, maxPerClient } = this.options;
    if (this.filters.size >= maxFilters) {
      throw new LimitExceededError(
        `too many filters: the node holds ${maxFilters}, its limit (--json-rpc.max-filters); uninstall some or let them expire`,
      );
    }
    const owned = this.perClient.get(owner) ?? 0;
    if (owned >= maxPerClient) {
      throw new LimitExceededError(
        `too many filters: this client holds ${maxPerClient}, the limit per client (--json-rpc.filters-per-client); uninstall some or let them expire`,
      );
    }
    const id = newFilterId();
    this.filters.set(id, make(id));
    this.perClient.set(owner, owned + 1);
    return id;
  }

  private expiryTimer(id: string): NodeJS.Timeout {
    return setTimeout(() => this.uninstall(id), this.options.timeoutMs).unref();
  }

  private require(id: string): InstalledFilter {
    const installed = this.filters.get(id.toLowerCase());
    if (installed === undefined) throw new NotFoundError('filter not found');
    return installed;
  }

  private onBlock(event: BlockCommittedEvent): void {
    for (const installed of this.filters.values()) {
      if (installed.type === FilterType.blocks) {
        installed.hashes.push(event.block.hashHex);
      } else if (installed.type === FilterType.logs && withinRange(installed.filter, event.block)) {
        for (const receipt of event.receipts) {
          for (const log of receipt.logs) if (installed.matches(log)) installed.logs.push(log);
        }
      }
    }
  }

  /** Log filters get the rewound logs they matched again, as `removed: true` (geth's reorgs). */
  private onRewind(event: ChainRewoundEvent): void {
    const rewound = rewoundLogs(event);
    for (const installed of this.filters.values()) {
      if (installed.type !== FilterType.logs) continue;
      for (const { block, logs } of rewound) {
        if (!withinRange(installed.filter, block)) continue;
        for (const log of logs) if (installed.matches(log)) installed.logs.push(log);
      }
    }
  }

  private onPendingTx(tx: PooledTransaction): void {
    for (const installed of this.filters.values()) {
      if (installed.type === FilterType.pendingTransactions) {
        installed.hashes.push(tx.hashHex);
      }
    }
  }
}
