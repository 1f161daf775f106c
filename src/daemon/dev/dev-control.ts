/**
 * The development controls of a dev chain (Hardhat's and anvil's test methods,
 * `docs/dev-methods.md`): snapshots and reverts, mining on demand, time, mining mode, state
 * setters, impersonation, dropping and resetting.
 *
 * The chain stays persistent and crash-safe under them:
 * - A state setter is a block of its own: the change is applied before an empty block's
 *   (no transactions) execution and committed with it, so it is durable at once, `latest`
 *   reads show it, and every later block's state root includes it.
 * - A snapshot is a block number (and the clock's offset), stored with the chain. A revert
 *   takes the blocks above it off the store in one transaction with the snapshots left
 *   (`ChainStore.rewindTo`), empties the pool, and publishes the rewind on the bus, where the
 *   log index, filters, subscriptions, caches and the consensus socket follow it.
 * - Everything runs between the engine's rounds (`ConsensusEngine.exclusive`, `mine`), so no
 *   block is being built while the chain is rewound or a setter's block is made.
 */
import { Account, type Address } from '@ethereumjs/util';
import type { StateManagerInterface } from '@ethereumjs/common';
import { MAX_BLOCK_TIMESTAMP } from '../chain/block-clock.js';
import type { Chain } from '../chain/chain.js';
import type { ConsensusEngine, MiningMode } from '../chain/consensus.js';
import type { ChainSnapshots } from '../chain/store.js';
import { InvalidInputError, LimitExceededError } from '../../shared/errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { TxPoolApi } from '../txpool/types.js';
import { Impersonation } from './impersonation.js';

/** Most blocks one `hardhat_mine`/`anvil_mine` call makes: each is a real, committed block. */
export const MAX_MINED_BLOCKS = 10_000;
/** Longest mining interval: what a Node.js timer can wait (about 24.8 days). */
export const MAX_MINING_INTERVAL_MS = 2 ** 31 - 1;
const MAX_NONCE = 2n ** 64n - 1n;

/** Refuses `value` above `max`, naming what it is. */
function atMost(value: bigint, max: bigint, what: string): bigint {
  if (value > max) throw new InvalidInputError(`invalid params: ${what} ${value} exceeds ${max}`);
  return value;
}

export interface DevControlParts {
  chain: Chain;
  engine: ConsensusEngine;
  pool: TxPoolApi;
  bus: EventBus;
  /** Told the engine's mining mode each time these methods change it. */
  onMiningMode?: (mode: MiningMode) => void;
}

export class DevControl {
  readonly impersonation = new Impersonation();
  private readonly initialMode: MiningMode;

  constructor(private readonly parts: DevControlParts) {
    this.initialMode = parts.engine.miningMode();
  }

  /** The engine's block clock (time controls). */
  get clock() {
    return this.parts.engine.clock;
  }

  /** Takes a snapshot of the chain as it is now; resolves with its id. */
  snapshot(): Promise<number> {
    const { chain, engine } = this.parts;
    return engine.exclusive(async () => {
      const { nextId, taken } = chain.snapshots();
      const snapshot = {
        id: nextId,
        blockNumber: Number(chain.head().number),
        timeOffset: this.clock.offsetSeconds.toString(),
      };
      await chain.saveSnapshots({ nextId: nextId + 1, taken: [...taken, snapshot] });
      return nextId;
    });
  }

  /**
   * Goes back to snapshot `id`, which is used up with every later one (Hardhat's semantics).
   * Resolves false when no such snapshot is left.
   */
  revert(id: number, cause: string): Promise<boolean> {
    const { chain, engine } = this.parts;
    return engine.exclusive(async () => {
      const { nextId, taken } = chain.snapshots();
      const snapshot = taken.find((s) => s.id === id);
      if (snapshot === undefined) return false;
      const left = { nextId, taken: taken.filter((s) => s.id < id) };
      await this.rewind(BigInt(snapshot.blockNumber), left, cause);
      this.clock.restore(BigInt(snapshot.timeOffset));
      return true;
    });
  }

  /**
   * Back to the genesis block: every block, snapshot, pooled transaction, impersonation and
   * time change gone, the mining mode the daemon started with. Snapshot ids go on counting.
   */
  reset(cause: string): Promise<void> {
    const { chain, engine } = this.parts;
    return engine.exclusive(async () => {
      await this.rewind(0n, { nextId: chain.snapshots().nextId, taken: [] }, cause);
      this.clock.reset();
      this.impersonation.clear();
      this.applyMiningMode(this.initialMode);
    });
  }

  /**
   * Mines `count` blocks with the pool's transactions; the first at `timestamp` when given
   * (else the clock's time), each next one `interval` seconds after the one before when given.
   */
  async mine(
    count: bigint,
    options: { interval?: bigint; timestamp?: bigint } = {},
  ): Promise<void> {
    if (count > BigInt(MAX_MINED_BLOCKS)) {
      throw new LimitExceededError(
        `cannot mine ${count} blocks in one call: at most ${MAX_MINED_BLOCKS} (each is a committed block)`,
      );
    }
    if (options.interval !== undefined) {
      atMost(options.interval, MAX_BLOCK_TIMESTAMP, 'interval (s)');
    }
    if (options.timestamp !== undefined) this.setNextBlockTimestamp(options.timestamp);
    for (let mined = 0n; mined < count; mined++) {
      if (mined > 0n && options.interval !== undefined) {
        this.clock.setNextTimestamp(
          this.parts.chain.head().block.header.timestamp + options.interval,
        );
      }
      await this.parts.engine.mine();
    }
  }

  /** The next block gets exactly `timestamp`, which must be after the head's. */
  setNextBlockTimestamp(timestamp: bigint): void {
    atMost(timestamp, MAX_BLOCK_TIMESTAMP, 'timestamp');
    const head = this.parts.chain.head().block.header.timestamp;
    if (timestamp <= head) {
      throw new InvalidInputError(
        `timestamp ${timestamp} is lower than or equal to the previous block's timestamp ${head}`,
      );
    }
    this.clock.setNextTimestamp(timestamp);
  }

  miningMode(): MiningMode {
    return this.parts.engine.miningMode();
  }

  setMiningMode(mode: Partial<MiningMode>): void {
    if (mode.intervalMs !== undefined) {
      atMost(BigInt(mode.intervalMs), BigInt(MAX_MINING_INTERVAL_MS), 'mining interval (ms)');
    }
    this.applyMiningMode(mode);
  }

  private applyMiningMode(mode: Partial<MiningMode>): void {
    const { engine, onMiningMode } = this.parts;
    engine.setMiningMode(mode);
    onMiningMode?.(engine.miningMode());
  }

  /** Moves the block clock forward by `seconds`; resolves with the offset from the wall clock. */
  increaseTime(seconds: bigint): bigint {
    atMost(this.clock.seconds() + seconds, MAX_BLOCK_TIMESTAMP, 'time');
    return this.clock.increase(seconds);
  }

  /** Sets the block clock to `timestamp`; resolves with the offset from the wall clock. */
  setTime(timestamp: bigint): bigint {
    return this.clock.setTime(atMost(timestamp, MAX_BLOCK_TIMESTAMP, 'timestamp'));
  }

  /** Stamps each block its parent's timestamp plus `seconds` (undefined: the clock again). */
  setBlockTimestampInterval(seconds: bigint | undefined): void {
    this.clock.setInterval(
      seconds === undefined ? undefined : atMost(seconds, MAX_BLOCK_TIMESTAMP, 'interval (s)'),
    );
  }

  setBalance(address: Address, balance: bigint): Promise<void> {
    return this.changeAccount(address, (account) => {
      account.balance = balance;
    });
  }

  setNonce(address: Address, nonce: bigint): Promise<void> {
    atMost(nonce, MAX_NONCE - 1n, 'nonce');
    return this.changeAccount(address, (account) => {
      account.nonce = nonce;
    });
  }

  setCode(address: Address, code: Uint8Array): Promise<void> {
    return this.changeState(address, async (state) => {
      await ensureAccount(state, address);
      await state.putCode(address, code);
    });
  }

  /** Sets storage word `slot` (32 bytes) of `address` to `value` (32 bytes). */
  setStorageAt(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    return this.changeState(address, async (state) => {
      await ensureAccount(state, address);
      await state.putStorage(address, slot, value);
    });
  }

  /** Takes a transaction out of the pool; false if it is not there. */
  dropTransaction(hashHex: string): boolean {
    const { pool } = this.parts;
    if (pool.getByHash(hashHex) === undefined) return false;
    pool.drop(hashHex);
    return true;
  }

  private changeAccount(address: Address, change: (account: Account) => void): Promise<void> {
    return this.changeState(address, async (state) => {
      const account = (await state.getAccount(address)) ?? new Account();
      change(account);
      await state.putAccount(address, account);
    });
  }

  /** Commits `change` as a block of its own (no transactions); the pool re-checks `address`. */
  private async changeState(
    address: Address,
    change: (state: StateManagerInterface) => Promise<void>,
  ): Promise<void> {
    await this.parts.engine.mine({
      includePool: false,
      stateChange: change,
      changedAccounts: [address],
    });
  }

  private async rewind(to: bigint, snapshots: ChainSnapshots, cause: string): Promise<void> {
    const { chain, pool, bus } = this.parts;
    const removed =
      to < chain.head().number
        ? await chain.rewindTo(to, snapshots)
        : (await chain.saveSnapshots(snapshots), []);
    // Transactions sent after the snapshot must not come back in the next block.
    await pool.dropAll();
    if (removed.length > 0) bus.publishRewind({ head: chain.head(), removed, cause });
  }
}

async function ensureAccount(state: StateManagerInterface, address: Address): Promise<void> {
  if ((await state.getAccount(address)) === undefined) {
    await state.putAccount(address, new Account());
  }
}
