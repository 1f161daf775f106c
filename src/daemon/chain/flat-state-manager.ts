/**
 * A MerkleStateManager that reads committed state from the flat tables when they describe its
 * root, and records what it writes so the block's commit can bring the tables along.
 *
 * Block execution and the reads at the head (balance, nonce, storage, code, the pool's account
 * reads) use it. Writes still go through the trie, which computes the state root; the flat
 * tables follow from the changes the state caches flush at the end of the block.
 */
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import {
  bytesToUnprefixedHex,
  concatBytes,
  createAccountFromRLP,
  unprefixedHexToBytes,
} from '@ethereumjs/util';
import { Account, Address } from '@ethereumjs/util';
import { QuicklySerializedAccount } from './account-rlp.js';
import { storageLeaves, type FlatStateView } from './flat-state.js';
import type { FlatEntry, FlatStateWrite } from './store.js';
import type { TrieNodeReader } from './trie-node-overlay.js';

/** RLP of the empty value: what the storage cache holds for an unset slot. */
const RLP_EMPTY = 0x80;

/** The changes flushed into the tries since the last block, by unprefixed address hex. */
class FlushedChanges {
  readonly accounts = new Map<string, Uint8Array | undefined>();
  readonly slots = new Map<string, Map<string, Uint8Array | undefined>>();
  /** Accounts whose storage was cleared (a creation over an address, a self-destruct). */
  readonly cleared = new Set<string>();

  clear(): void {
    this.accounts.clear();
    this.slots.clear();
    this.cleared.clear();
  }
}

/** Has `cache` hand every batch of items it flushes to `record` as well. */
function recordFlushes<T>(cache: { flush(): T[] }, record: (items: T[]) => void): void {
  const flush = cache.flush.bind(cache);
  cache.flush = () => {
    const items = flush();
    record(items);
    return items;
  };
}

/** EthereumJS's default caches, whose account and storage flushes land in `changes` too. */
function recordingCaches(changes: FlushedChanges): Caches {
  const caches = new Caches();
  recordFlushes(caches.account!, (items) => {
    for (const [addressHex, element] of items) changes.accounts.set(addressHex, element.accountRLP);
  });
  recordFlushes(caches.storage!, (items) => {
    for (const [addressHex, keyHex, value] of items) {
      let slots = changes.slots.get(addressHex);
      if (slots === undefined) changes.slots.set(addressHex, (slots = new Map()));
      slots.set(keyHex, value);
    }
  });
  return caches;
}

/**
 * A separate account with the same fields. The byte fields are shared: accounts replace them
 * when they change, never write into them.
 */
function copyOf(account: Account): Account {
  return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
}

export interface FlatStateManagerOptions {
  trie: MerklePatriciaTrie;
  common: Common;
  flat: FlatStateView;
  /** Keep state in caches between reads and record flushed changes (the block executor). */
  executing?: boolean;
}

export class FlatStateManager extends MerkleStateManager {
  private readonly flat: FlatStateView;
  private readonly changes: FlushedChanges | undefined;
  /**
   * The account each cached RLP decodes to. EthereumJS keeps cached accounts as RLP and decodes
   * them on every read, and a value transfer reads its sender, recipient and coinbase several
   * times. Keyed by the cached bytes themselves, an entry holds for as long as the cache holds
   * those bytes, whatever checkpoints are reverted.
   */
  private readonly decoded = new WeakMap<Uint8Array, Account>();

  constructor(options: FlatStateManagerOptions) {
    const changes = options.executing === true ? new FlushedChanges() : undefined;
    super({
      trie: options.trie,
      common: options.common,
      caches: changes === undefined ? undefined : recordingCaches(changes),
    });
    this.flat = options.flat;
    this.changes = changes;
  }

  /**
   * Not in the caches means not changed since the trie's root was committed (the account trie
   * is only written when the caches flush), so the flat tables answer if they describe it.
   */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const cached = this._caches?.account?.get(address);
    if (cached !== undefined) {
      return cached.accountRLP === undefined ? undefined : this.decodedCopy(cached.accountRLP);
    }
    const rlp = this.flat.account(this._trie.root(), address.bytes);
    if (rlp !== undefined) {
      const account = rlp === null ? undefined : createAccountFromRLP(rlp);
      this._caches?.account?.put(address, account);
      return account;
    }
    return super.getAccount(address);
  }

  /** Written accounts are read back at once (the EVM reads, changes and writes each in turn). */
  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (account === undefined || this._caches?.account === undefined) {
      return super.putAccount(address, account);
    }
    const written = QuicklySerializedAccount.of(account);
    await super.putAccount(address, written);
    const rlp = this._caches.account.get(address)?.accountRLP;
    if (rlp !== undefined) this.decoded.set(rlp, written);
  }

  /** A fresh account equal to what `rlp` decodes to: callers change the one they are given. */
  private decodedCopy(rlp: Uint8Array): Account {
    let account = this.decoded.get(rlp);
    if (account === undefined) this.decoded.set(rlp, (account = createAccountFromRLP(rlp)));
    return copyOf(account);
  }

  /**
   * Storage tries too change only when the caches flush, except when an account's storage is
   * cleared: those accounts read from the trie until the block is committed. A cached slot is
   * answered here, as the library would, without looking it up a second time.
   */
  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length === 32) {
      const cached = this._caches?.storage?.get(address, key);
      if (cached !== undefined) return RLP.decode(cached) as Uint8Array;
      if (this.changes?.cleared.has(bytesToUnprefixedHex(address.bytes)) !== true) {
        const value = this.flat.slot(this._trie.root(), address.bytes, key);
        if (value !== undefined) {
          this._caches?.storage?.put(address, key, RLP.encode(value));
          return value;
        }
      }
    }
    return super.getStorage(address, key);
  }

  override async clearStorage(address: Address): Promise<void> {
    this.changes?.cleared.add(bytesToUnprefixedHex(address.bytes));
    return super.clearStorage(address);
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.changes?.cleared.add(bytesToUnprefixedHex(address.bytes));
    return super.deleteAccount(address);
  }

  /**
   * The flat-table change of everything flushed since the last call, for the block whose state
   * root is `stateRoot`; `readNode` reads the block's trie nodes (committed or not). Accounts
   * whose storage was cleared get their whole storage from the trie.
   */
  async takeFlatChanges(readNode: TrieNodeReader, stateRoot: Uint8Array): Promise<FlatStateWrite> {
    const changes = this.changes!;
    const keccak = this.flat.keccak;
    const accounts: FlatEntry[] = [];
    const slots: FlatEntry[] = [];
    const clearedStorage: Uint8Array[] = [];
    for (const [addressHex, rlp] of changes.accounts) {
      accounts.push([keccak(unprefixedHexToBytes(addressHex)), rlp]);
    }
    for (const addressHex of changes.cleared) {
      const address = unprefixedHexToBytes(addressHex);
      const hashedAddress = keccak(address);
      clearedStorage.push(hashedAddress);
      // The clear may have been reverted with its transaction: the storage is whatever the
      // account's storage root now holds.
      const account = await super.getAccount(new Address(address));
      if (account === undefined) continue;
      for (const [hashedSlot, value] of storageLeaves(readNode, account.serialize())) {
        slots.push([concatBytes(hashedAddress, hashedSlot), value]);
      }
    }
    for (const [addressHex, written] of changes.slots) {
      if (changes.cleared.has(addressHex)) continue;
      const hashedAddress = keccak(unprefixedHexToBytes(addressHex));
      for (const [keyHex, value] of written) {
        const isSet = value !== undefined && !(value.length === 1 && value[0] === RLP_EMPTY);
        slots.push([
          concatBytes(hashedAddress, keccak(unprefixedHexToBytes(keyHex))),
          isSet ? value : undefined,
        ]);
      }
    }
    changes.clear();
    return { stateRoot, replace: false, clearedStorage, accounts, slots };
  }

  /** Forgets the recorded changes (a block that was not committed). */
  discardFlatChanges(): void {
    this.changes?.clear();
  }
}
