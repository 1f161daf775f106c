import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { ConsensusEngine } from '../../src/daemon/chain/consensus.js';
import type { ConsensusStepEvent } from '../../src/daemon/chain/consensus.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import type { BlockCommittedEvent } from '../../src/daemon/events/event-bus.js';
import type {
  AccountReads,
  Admission,
  PoolStatus,
  PooledTransaction,
  TxPoolApi,
} from '../../src/daemon/txpool/types.js';
import { devAddress, pooled, signTx, tempDataDir } from './chain-fixtures.js';

/** The smallest pool the engine can work with: everything added is executable, in order. */
class FakePool implements TxPoolApi {
  readonly txs: PooledTransaction[] = [];
  readonly committed: string[][] = [];
  private readonly listeners = new Set<(tx: PooledTransaction) => void>();

  async add(tx: TypedTransaction): Promise<PooledTransaction> {
    const entry = pooled(tx);
    this.txs.push(entry);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }
  async admit(tx: TypedTransaction): Promise<Admission> {
    return { pooled: await this.add(tx), durable: Promise.resolve() };
  }
  /** Adds several without waking the engine in between, as a burst of submissions would. */
  addAll(txs: TypedTransaction[]): void {
    this.txs.push(...txs.map(pooled));
    for (const listener of this.listeners) listener(this.txs[this.txs.length - 1]);
  }
  executable(): PooledTransaction[] {
    return [...this.txs];
  }
  /** Runs inside `onBlockCommitted`, with the block's post-state, before it returns. */
  whileCommitting: ((state: AccountReads) => Promise<void>) | undefined;
  async onBlockCommitted(included: readonly string[], state: AccountReads): Promise<void> {
    await this.whileCommitting?.(state);
    this.committed.push([...included]);
    const gone = new Set(included);
    this.txs.splice(0, this.txs.length, ...this.txs.filter((t) => !gone.has(t.hashHex)));
  }
  drop(hashHex: string): void {
    this.txs.splice(0, this.txs.length, ...this.txs.filter((t) => t.hashHex !== hashHex));
  }
  async dropAll(): Promise<string[]> {
    return this.txs.splice(0).map((t) => t.hashHex);
  }
  getByHash(hashHex: string): PooledTransaction | undefined {
    return this.txs.find((t) => t.hashHex === hashHex);
  }
  isPending(hashHex: string): boolean {
    return this.getByHash(hashHex) !== undefined;
  }
  pendingBySender(): Map<string, PooledTransaction[]> {
    return new Map();
  }
  queuedBySender(): Map<string, PooledTransaction[]> {
    return new Map();
  }
  async pendingNonce(address: Address): Promise<bigint> {
    return BigInt(this.txs.filter((t) => t.sender.equals(address)).length);
  }
  status(): PoolStatus {
    return { pending: this.txs.length, queued: 0 };
  }
  admitting(): number {
    return 0;
  }
  onPending(listener: (tx: PooledTransaction) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function nextBlock(bus: EventBus): Promise<BlockCommittedEvent> {
  return new Promise((resolve) => {
    const off = bus.onBlock((event) => {
      off();
      resolve(event);
    });
  });
}

describe('consensus engine', () => {
  let chain: Chain;
  let cleanup: () => void;
  let pool: FakePool;
  let bus: EventBus;

  beforeEach(async () => {
    const tmp = tempDataDir();
    cleanup = tmp.cleanup;
    chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis() });
    pool = new FakePool();
    bus = new EventBus();
  });

  afterEach(async () => {
    await chain.close();
    cleanup();
  });

  it('at block time 0 batches everything pending into one block, with real steps', async () => {
    const engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 0 });
    const steps: ConsensusStepEvent[] = [];
    engine.onStep((event) => steps.push(event));
    engine.start();
    const committed = nextBlock(bus);
    pool.addAll(
      Array.from({ length: 20 }, (_, i) =>
        signTx(chain.common, i % 4, {
          nonce: BigInt(Math.floor(i / 4)),
          to: devAddress(9),
          value: 1n,
        }),
      ),
    );
    const event = await committed;
    await engine.stop();
    expect(event.block.number).toBe(1n);
    expect(event.results).toHaveLength(20);
    expect(event.results.every((r) => r.code === 0)).toBe(true);
    expect(chain.head().number).toBe(1n);
    expect(pool.txs).toHaveLength(0);
    expect(pool.committed).toEqual([event.results.map((r) => r.hashHex)]);
    expect(steps.map((s) => s.step)).toEqual(['propose', 'prevote', 'precommit', 'commit']);
    expect(steps[3].blockHash).toBe(event.block.hashHex);
  });

  it('lets no reader see a block before the pool has taken it, and publishes it at once', async () => {
    const engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 0 });
    const seenWhileCommitting: Array<[bigint, bigint, bigint]> = [];
    pool.whileCommitting = async (state) => {
      // A real pause: other work of this thread may run meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 20));
      seenWhileCommitting.push([
        chain.head().number,
        chain.sharedHead.read(),
        await state.getNonce(devAddress(0)),
      ]);
    };
    const atPublication: bigint[] = [];
    bus.onBlock(() => atPublication.push(chain.head().number, chain.sharedHead.read()));
    engine.start();
    const committed = nextBlock(bus);
    await pool.add(signTx(chain.common, 0, { nonce: 0n, to: devAddress(9), value: 1n }));
    await committed;
    await engine.stop();
    expect(seenWhileCommitting).toEqual([[0n, 0n, 1n]]);
    expect(atPublication).toEqual([1n, 1n]);
  });

  it('packs a block by the gas transactions use, not the gas limits they declare', async () => {
    const engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 0 });
    engine.start();
    const committed = nextBlock(bus);
    // 40 transfers declaring 1 000 000 gas each: 40 M declared against a 30 M block gas limit,
    // 840 000 used.
    const txs = Array.from({ length: 40 }, (_, i) =>
      signTx(chain.common, i % 4, {
        nonce: BigInt(Math.floor(i / 4)),
        to: devAddress(9),
        value: 1n,
        gasLimit: 1_000_000n,
      }),
    );
    pool.addAll(txs);
    const event = await committed;
    await engine.stop();
    expect(chain.blockGasLimit()).toBe(30_000_000n);
    expect(event.results).toHaveLength(40);
    expect(event.block.block.header.gasUsed).toBe(40n * 21_000n);
    // The block holds the pool's own transaction objects, not copies rebuilt from their fields.
    expect(event.block.block.transactions.every((tx) => txs.includes(tx))).toBe(true);
  });

  it('with empty blocks disabled makes none while idle, and one as soon as a tx is pending', async () => {
    const engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 10, emptyBlocks: false });
    let rounds = 0;
    engine.onStep((event) => {
      if (event.step === 'propose') rounds++;
    });
    engine.start();
    // Let at least five intervals pass (polled against the wall clock, not slept).
    const idleUntil = Date.now() + 60;
    while (Date.now() < idleUntil) await new Promise((resolve) => setImmediate(resolve));
    expect(chain.head().number).toBe(0n);
    expect(rounds).toBe(0);
    const committed = nextBlock(bus);
    await pool.add(signTx(chain.common, 0, { nonce: 0n, to: devAddress(1), value: 1n }));
    const event = await committed;
    await engine.stop();
    expect(event.block.number).toBe(1n);
    expect(event.results).toHaveLength(1);
  });

  it('makes empty blocks at each interval by default and stops cleanly', async () => {
    const engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 5 });
    engine.start();
    await nextBlock(bus);
    await nextBlock(bus);
    await engine.stop();
    const height = chain.head().number;
    expect(height).toBeGreaterThanOrEqual(2n);
    expect(chain.head().block.transactions).toHaveLength(0);
    expect(chain.head().block.header.timestamp).toBeGreaterThan(
      chain.getBlockByNumber(height - 1n)!.block.header.timestamp,
    );
  });

  it('an interval block also takes the transactions that arrive while it runs', async () => {
    await chain.close();
    cleanup();
    const tmp = tempDataDir();
    cleanup = tmp.cleanup;
    // Every transaction a turn of its own, as the time slices give a block of a burst.
    chain = await Chain.open({
      dataDir: tmp.dir,
      genesis: devGenesis(),
      pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
    });
    const engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 1000, emptyBlocks: false });
    const transfer = (nonce: number) =>
      signTx(chain.common, 0, { nonce: BigInt(nonce), to: devAddress(9), value: 1n });
    engine.onStep((event) => {
      if (event.step === 'precommit' && event.height === 1n) {
        setImmediate(() => pool.addAll(Array.from({ length: 10 }, (_, i) => transfer(10 + i))));
      }
    });
    pool.addAll(Array.from({ length: 10 }, (_, i) => transfer(i)));
    const committed = nextBlock(bus);
    engine.start();
    const event = await committed;
    await engine.stop();
    expect(event.block.number).toBe(1n);
    expect(event.results).toHaveLength(20);
    expect(event.results.every((r) => r.code === 0)).toBe(true);
    expect(pool.txs).toHaveLength(0);
  });

  it('drops rejected transactions from the pool', async () => {
    const engine = new ConsensusEngine({ chain, pool, bus, blockTimeMs: 0 });
    engine.start();
    const committed = nextBlock(bus);
    pool.addAll([
      signTx(chain.common, 0, { nonce: 0n, to: devAddress(1), value: 1n }),
      signTx(chain.common, 1, { nonce: 3n, to: devAddress(1), value: 1n }),
    ]);
    const event = await committed;
    await engine.stop();
    expect(event.results).toHaveLength(1);
    expect(pool.txs).toHaveLength(0);
  });
});

describe('event bus', () => {
  it('isolates a throwing listener from the others and from the producer', () => {
    const errors: unknown[] = [];
    const bus = new EventBus({ onListenerError: (error) => errors.push(error) });
    const seen: string[] = [];
    bus.onPendingTx(() => {
      throw new Error('boom');
    });
    const off = bus.onPendingTx((tx) => seen.push(tx.hashHex));
    const tx = { hashHex: '0x01' } as PooledTransaction;
    expect(() => bus.publishPendingTx(tx)).not.toThrow();
    expect(seen).toEqual(['0x01']);
    expect(errors).toHaveLength(1);
    off();
    bus.publishPendingTx(tx);
    expect(seen).toEqual(['0x01']);
    expect(bus.listenerCount()).toEqual({ block: 0, pendingTx: 1 });
  });
});
