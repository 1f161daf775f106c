/**
 * A write-back layer for trie nodes: writes stay in memory, reads fall through to a base.
 *
 * The chain uses one over the LMDB node table for the block in flight (its writes are drained
 * into the block's single LMDB transaction), and throw-away ones for `eth_call` and gas
 * estimation, whose writes are simply dropped. Deletes are ignored: the node keeps history.
 */
import type { BatchDBOp, DB } from '@ethereumjs/util';
import type { Pause } from '../time-slice.js';

/** Synchronous read of a node from the layer below. */
export type TrieNodeReader = (key: string) => Uint8Array | undefined;

export class TrieNodeOverlay implements DB<string, string | Uint8Array> {
  private readonly written = new Map<string, Uint8Array>();

  /**
   * @param pause asked before each node operation: the trie's walks during a block's flush and
   * root computation then run in time slices (`../time-slice.ts`).
   */
  constructor(
    private readonly readBase: TrieNodeReader,
    private readonly pause?: Pause,
  ) {}

  /** Synchronous read: this layer first, then the base. */
  read(key: string): Uint8Array | undefined {
    return this.written.get(key) ?? this.readBase(key);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    await this.pause?.();
    return this.read(key);
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    await this.pause?.();
    this.written.set(key, toBytes(value));
  }

  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    await this.pause?.();
    for (const op of ops) if (op.type === 'put') this.written.set(op.key, toBytes(op.value));
  }

  /** Storage tries are shallow copies of the account trie; they must share this layer. */
  shallowCopy(): TrieNodeOverlay {
    return this;
  }

  async open(): Promise<void> {}

  /** The nodes written since the last {@link clear}, for persisting. */
  writtenNodes(): ReadonlyMap<string, Uint8Array> {
    return this.written;
  }

  /** Drops what was written: once committed it is readable from the base; or it was abandoned. */
  clear(): void {
    this.written.clear();
  }
}

function toBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? new TextEncoder().encode(value) : value;
}
