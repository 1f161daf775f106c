/**
 * The node's event bus: the one place committed blocks and newly pending transactions are
 * published, and where every reader (JSON-RPC filters and subscriptions, the consensus socket,
 * `/ws/node`) listens, so none of them polls the database.
 *
 * Publishing is synchronous and in subscription order, so readers see blocks in chain order.
 * Listeners are isolated: one that throws is reported through `onListenerError` and neither
 * the other listeners nor the producer notice.
 */
import type {
  ChainLog,
  ChainReceipt,
  RewoundBlock,
  StoredBlock,
  TxResult,
} from '../chain/types.js';
import type { PooledTransaction } from '../txpool/types.js';
import type { StorageEvent } from '../../shared/storage-api.js';

/** A block the chain committed, with its receipts and the consensus result of each transaction. */
export interface BlockCommittedEvent {
  block: StoredBlock;
  receipts: ChainReceipt[];
  results: TxResult[];
}

/**
 * A development rewind (`evm_revert`, `anvil_reset`): the chain's head is now `head`, and the
 * blocks in `removed` (oldest first) are gone. Published after the store committed it and
 * before the rewinding request is answered.
 */
export interface ChainRewoundEvent {
  head: StoredBlock;
  removed: RewoundBlock[];
  /** What asked for it: the method's name. */
  cause: string;
}

/**
 * The logs a rewind took away, as the notices filters and subscriptions give (`removed: true`),
 * newest block first as geth announces a reorganisation's removed logs.
 */
export function rewoundLogs(
  event: ChainRewoundEvent,
): Array<{ block: StoredBlock; logs: ChainLog[] }> {
  return [...event.removed].reverse().map(({ block, receipts }) => ({
    block,
    logs: receipts.flatMap((receipt) => receipt.logs.map((log) => ({ ...log, removed: true }))),
  }));
}

export type Unsubscribe = () => void;

type Listener<E> = (event: E) => void;

export interface EventBusOptions {
  /** Told about listeners that threw; defaults to `console.error`. */
  onListenerError?: (error: unknown, channel: string) => void;
}

class Channel<E> {
  private readonly listeners = new Set<Listener<E>>();

  constructor(
    private readonly name: string,
    private readonly onError: (error: unknown, channel: string) => void,
  ) {}

  subscribe(listener: Listener<E>): Unsubscribe {
    // Wrapped so the same function may subscribe twice and unsubscribe each time separately.
    const entry: Listener<E> = (event) => listener(event);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  publish(event: E): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onError(error, this.name);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}

export class EventBus {
  private readonly blocks: Channel<BlockCommittedEvent>;
  private readonly pendingTxs: Channel<PooledTransaction>;
  private readonly rewinds: Channel<ChainRewoundEvent>;
  private readonly storage: Channel<StorageEvent>;

  constructor(options: EventBusOptions = {}) {
    const onError =
      options.onListenerError ??
      ((error: unknown, channel: string) =>
        console.error(`event bus: ${channel} listener failed`, error));
    this.blocks = new Channel('block', onError);
    this.pendingTxs = new Channel('pendingTx', onError);
    this.rewinds = new Channel('rewind', onError);
    this.storage = new Channel('storage', onError);
  }

  publishBlock(event: BlockCommittedEvent): void {
    this.blocks.publish(event);
  }

  onBlock(listener: Listener<BlockCommittedEvent>): Unsubscribe {
    return this.blocks.subscribe(listener);
  }

  publishPendingTx(tx: PooledTransaction): void {
    this.pendingTxs.publish(tx);
  }

  onPendingTx(listener: Listener<PooledTransaction>): Unsubscribe {
    return this.pendingTxs.subscribe(listener);
  }

  publishRewind(event: ChainRewoundEvent): void {
    this.rewinds.publish(event);
  }

  /** Listens to development rewinds: whoever keeps anything by block number must drop it. */
  onRewind(listener: Listener<ChainRewoundEvent>): Unsubscribe {
    return this.rewinds.subscribe(listener);
  }

  /** File status and chunk replica changes of the storage layer. */
  publishStorage(event: StorageEvent): void {
    this.storage.publish(event);
  }

  onStorage(listener: Listener<StorageEvent>): Unsubscribe {
    return this.storage.subscribe(listener);
  }

  /** Number of listeners per channel (for status output and tests). */
  listenerCount(): { block: number; pendingTx: number } {
    return { block: this.blocks.size, pendingTx: this.pendingTxs.size };
  }
}
