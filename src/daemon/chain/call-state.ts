/**
 * The state `eth_call` and `eth_estimateGas` run on.
 *
 * Committed state never changes: the account at an address under a state root, the slot of a
 * storage trie under its root and the code with a hash are the same for every call that reads
 * them. So reads of committed state go to caches shared by all calls, while each call's own
 * writes stay in the state manager's journaled caches, which the revert after the call drops.
 * Without this every call re-read its accounts, slots and code from the trie (decoding the
 * nodes on the way), because reverting a call also drops what it had read.
 *
 * At the head, committed accounts and slots come from the flat state tables (`flat-state.ts`):
 * one lookup each instead of a walk down the trie.
 */
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX, Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { Common } from '@ethereumjs/common';
import { Account, concatBytes, createAccountFromRLP, equalsBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { latin1Key } from './byte-strings.js';
import type { FlatStateView } from './flat-state.js';
import { LruCache } from './lru-cache.js';

/** Accounts remembered per state root. */
const ACCOUNTS_PER_ROOT = 4096;
/** Storage slots remembered across all roots (keyed by storage root and slot; ~4 MiB). */
const STORAGE_SLOTS = 4_096;
/** Contract codes remembered (at most 24 KiB each once deployed, EIP-170: 6 MiB at worst). */
const CODES = 256;
/** Storage tries kept open, by storage root (each a few hundred bytes: no node cache). */
const STORAGE_TRIES = 256;

const EMPTY = new Uint8Array(0);

/**
 * Storage slots, contract code and storage tries read by calls, shared by the state managers of
 * every state root: all are content-addressed (by storage root and by code hash), so they never
 * go stale. A storage trie is only read through here, for slots the call has not written, so
 * it can serve every call; EthereumJS would otherwise build a new one for each call (its
 * revert drops them), which cost more than the read itself.
 */
export class CommittedReads {
  readonly slots = new LruCache<string, Uint8Array>(STORAGE_SLOTS);
  readonly codes = new LruCache<string, Uint8Array>(CODES);
  readonly storageTries = new LruCache<string, MerklePatriciaTrie>(STORAGE_TRIES);
}

/** A copy callers may change (the EVM updates the accounts it is given, then puts them back). */
function copyAccount(account: Account): Account {
  return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
}

function sameAccount(a: Account, b: Account): boolean {
  return (
    a.nonce === b.nonce &&
    a.balance === b.balance &&
    equalsBytes(a.storageRoot, b.storageRoot) &&
    equalsBytes(a.codeHash, b.codeHash)
  );
}

/** A MerkleStateManager over one committed state root that reads through shared caches. */
export class CallStateManager extends MerkleStateManager {
  /** The account at each address read so far under this root (`null`: no account). */
  private readonly accounts = new LruCache<string, Account | null>(ACCOUNTS_PER_ROOT);
  /**
   * The same by `Address` object: a message asks for its caller and callee half a dozen times,
   * always through the same objects, and making the string key cost more than the lookup.
   */
  private readonly accountsByObject = new WeakMap<Address, Account | null>();
  /**
   * The accounts a call wrote, decoded, by the encoding the journaled cache holds for them: a
   * read of one then needs no decoding, and putting it back unchanged (the EVM puts the caller
   * back after taking a call's value, zero or not) no encoding. A revert puts an earlier
   * encoding back, which finds its own account here.
   */
  private readonly written = new WeakMap<Uint8Array, Account>();
  /** The committed state root the calls run on. */
  private readonly stateRoot: Uint8Array;

  constructor(
    trie: MerklePatriciaTrie,
    common: Common,
    private readonly committed: CommittedReads,
    private readonly flat: FlatStateView,
  ) {
    super({ trie, common, caches: new Caches() });
    this.stateRoot = trie.root();
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const own = this._caches!.account!.get(address);
    if (own !== undefined) {
      if (own.accountRLP === undefined) return undefined;
      const written = this.written.get(own.accountRLP);
      return written === undefined ? createAccountFromRLP(own.accountRLP) : copyAccount(written);
    }
    let committed = this.knownAccount(address);
    if (committed === undefined) {
      // Copied: the RLP is a view into a whole trie node, which the cache would keep alive.
      const rlp =
        this.flat.account(this.stateRoot, address.bytes) ?? (await this._trie.get(address.bytes));
      committed = rlp === null ? null : createAccountFromRLP(rlp.slice());
      this.accounts.set(address.toString(), committed);
      this.accountsByObject.set(address, committed);
    }
    return committed === null ? undefined : copyAccount(committed);
  }

  /** The committed account at `address` if read before (null: none), else undefined. */
  private knownAccount(address: Address): Account | null | undefined {
    let committed = this.accountsByObject.get(address);
    if (committed === undefined) {
      committed = this.accounts.get(address.toString());
      if (committed !== undefined) this.accountsByObject.set(address, committed);
    }
    return committed;
  }

  /**
   * The EVM puts the caller and the callee back at every call, changed or not. Putting back an
   * account unchanged (from the committed state, or from this call's last write) would only cost
   * an encoding into the journaled cache, so it is skipped; anything else (a change, a first
   * write to a missing account) is written.
   */
  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (account === undefined) return super.putAccount(address, account);
    const own = this._caches!.account!.get(address);
    const current =
      own === undefined
        ? this.knownAccount(address)
        : own.accountRLP && this.written.get(own.accountRLP);
    if (current && sameAccount(current, account)) return;
    await super.putAccount(address, account);
    const encoded = this._caches!.account!.get(address)?.accountRLP;
    if (encoded !== undefined) this.written.set(encoded, copyAccount(account));
  }

  /**
   * Not in the journaled cache means not written by this call, so the value is the one in the
   * storage trie under the account's current storage root. A storage root is the hash of the
   * storage's contents, so what a slot holds under a root is fixed, whichever call computed it.
   */
  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    // EthereumJS's own check and error for a malformed key.
    if (key.length !== 32) return super.getStorage(address, key);
    const own = this._caches!.storage!.get(address, key);
    if (own !== undefined) return RLP.decode(own) as Uint8Array;
    const account = await this.getAccount(address);
    if (account === undefined) return EMPTY;
    const committedAccount = this.knownAccount(address);
    if (committedAccount && equalsBytes(committedAccount.storageRoot, account.storageRoot)) {
      const value = this.flat.slot(this.stateRoot, address.bytes, key);
      if (value !== undefined) return value;
    }
    const rootKey = latin1Key(account.storageRoot);
    const slotKey = rootKey + latin1Key(key);
    let value = this.committed.slots.get(slotKey);
    if (value === undefined) {
      const encoded = await this.committedStorageTrie(account.storageRoot, rootKey).get(key);
      value = encoded === null ? EMPTY : (RLP.decode(encoded) as Uint8Array).slice();
      this.committed.slots.set(slotKey, value);
    }
    return value;
  }

  /** The storage trie under `root` (`rootKey`), opened once for every call that reads it. */
  private committedStorageTrie(root: Uint8Array, rootKey: string): MerklePatriciaTrie {
    let trie = this.committed.storageTries.get(rootKey);
    if (trie === undefined) {
      trie = this._trie.shallowCopy(false);
      trie.root(root);
      this.committed.storageTries.set(rootKey, trie);
    }
    return trie;
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const own = this._caches!.code!.get(address);
    if (own !== undefined) return own.code ?? EMPTY;
    const account = await this.getAccount(address);
    if (account === undefined || !account.isContract()) return EMPTY;
    const hashKey = latin1Key(account.codeHash);
    let code = this.committed.codes.get(hashKey);
    if (code === undefined) {
      code =
        (await this._trie.database().get(concatBytes(CODEHASH_PREFIX, account.codeHash))) ?? EMPTY;
      this.committed.codes.set(hashKey, code);
    }
    return code;
  }
}
