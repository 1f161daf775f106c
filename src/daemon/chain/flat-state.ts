/**
 * Flat state: the head's accounts and storage slots in two tables keyed as the trie keys them
 * (`store.ts`), so a read at the head is one lookup instead of a walk from the root through a
 * dozen nodes, each decoded on the way (the role of geth's snapshot layer).
 *
 * The tables are tagged with the state root they describe, and a read names the root it wants:
 * anything else (an older block, a store whose tables are being rebuilt, a reader whose
 * snapshot has moved on) gets no answer and falls back to the trie, which stays the source of
 * roots, proofs and every older state.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, equalsBytes } from '@ethereumjs/util';
import type { ChainStore, FlatEntry, FlatStateWrite } from './store.js';
import type { TrieNodeReader } from './trie-node-overlay.js';
import { trieLeaves } from './trie-leaves.js';

export type Keccak = (data: Uint8Array) => Uint8Array;

/** Reads of the flat tables on behalf of one state root. */
export class FlatStateView {
  constructor(
    private readonly store: ChainStore,
    readonly keccak: Keccak,
  ) {}

  /** Whether the tables describe the state under `stateRoot` in this read snapshot. */
  describes(stateRoot: Uint8Array): boolean {
    const tag = this.store.flatStateRoot();
    return tag !== undefined && equalsBytes(tag, stateRoot);
  }

  /**
   * The RLP of the account at `address` under `stateRoot`: null when there is none, undefined
   * when the tables cannot tell (they describe another root).
   */
  account(stateRoot: Uint8Array, address: Uint8Array): Uint8Array | null | undefined {
    if (!this.describes(stateRoot)) return undefined;
    return this.store.flatAccount(this.keccak(address)) ?? null;
  }

  /**
   * The value (RLP-decoded, without leading zeros) of storage `slot` of `address` under
   * `stateRoot`, empty when unset; undefined when the tables cannot tell.
   */
  slot(stateRoot: Uint8Array, address: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    if (!this.describes(stateRoot)) return undefined;
    const encoded = this.store.flatSlot(this.keccak(address), this.keccak(slot));
    return encoded === undefined ? new Uint8Array(0) : (RLP.decode(encoded) as Uint8Array);
  }
}

/** The flat tables of the whole state under `stateRoot`, read from its trie. */
export function flatStateOfTrie(readNode: TrieNodeReader, stateRoot: Uint8Array): FlatStateWrite {
  const accounts: FlatEntry[] = [];
  const slots: FlatEntry[] = [];
  for (const [hashedAddress, rlp] of trieLeaves(readNode, stateRoot)) {
    accounts.push([hashedAddress, rlp]);
    for (const [hashedSlot, value] of storageLeaves(readNode, rlp)) {
      slots.push([concatBytes(hashedAddress, hashedSlot), value]);
    }
  }
  return { stateRoot, replace: true, clearedStorage: [], accounts, slots };
}

/** The storage leaves of the account whose RLP is `accountRlp`. */
export function storageLeaves(
  readNode: TrieNodeReader,
  accountRlp: Uint8Array,
): Generator<[Uint8Array, Uint8Array]> {
  const [, , storageRoot] = RLP.decode(accountRlp) as Uint8Array[];
  return trieLeaves(readNode, storageRoot);
}

/** What {@link compareFlatState} found. */
export interface FlatStateComparison {
  accounts: number;
  slots: number;
  /** At most {@link MAX_DIFFERENCES} of them, in words. */
  differences: string[];
}

const MAX_DIFFERENCES = 20;

/**
 * Compares the flat tables with the trie under `stateRoot`, entry by entry: every account and
 * slot of the trie must be in the tables with the same value, and nothing else. Counts what
 * the trie holds.
 */
export function compareFlatState(store: ChainStore, stateRoot: Uint8Array): FlatStateComparison {
  const result: FlatStateComparison = { accounts: 0, slots: 0, differences: [] };
  const differ = (what: string) => {
    if (result.differences.length < MAX_DIFFERENCES) result.differences.push(what);
  };
  const tag = store.flatStateRoot();
  if (tag === undefined || !equalsBytes(tag, stateRoot)) {
    differ(`the flat tables describe state root ${tag === undefined ? 'none' : bytesToHex(tag)}`);
    return result;
  }
  const trieAccounts = trieLeaves(store.readTrieNode, stateRoot);
  mergeSorted(trieAccounts, store.flatAccountEntries(), 'account', differ, (key, rlp) => {
    result.accounts++;
    const slots = storageLeaves(store.readTrieNode, rlp);
    mergeSorted(
      slots,
      store.flatStorageEntries(key),
      `slot of account ${bytesToHex(key)}`,
      differ,
      () => {
        result.slots++;
      },
    );
  });
  const flatSlots = store.flatStorageCount();
  if (flatSlots !== result.slots) {
    differ(`the flat tables hold ${flatSlots} slots, the trie ${result.slots}`);
  }
  return result;
}

/**
 * Walks two key-ordered sequences of `[key, value]` side by side, reporting keys only one holds
 * and values that differ; `onTrie` sees every entry of the first (the trie's).
 */
function mergeSorted(
  trie: Iterator<[Uint8Array, Uint8Array]>,
  flat: Iterator<[Uint8Array, Uint8Array]>,
  what: string,
  differ: (what: string) => void,
  onTrie: (key: Uint8Array, value: Uint8Array) => void,
): void {
  let a = trie.next();
  let b = flat.next();
  while (!a.done || !b.done) {
    const order = a.done ? 1 : b.done ? -1 : compareBytes(a.value[0], b.value[0]);
    if (order < 0) differ(`${what} ${bytesToHex(a.value![0])} is missing from the flat tables`);
    else if (order > 0) differ(`${what} ${bytesToHex(b.value![0])} is in the flat tables only`);
    else if (!equalsBytes(a.value![1], b.value![1])) {
      differ(`${what} ${bytesToHex(a.value![0])} differs from the trie`);
    }
    if (order <= 0) {
      onTrie(a.value![0], a.value![1]);
      a = trie.next();
    }
    if (order >= 0) b = flat.next();
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}
