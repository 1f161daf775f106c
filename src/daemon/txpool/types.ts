/**
 * The contract between the mempool and its two users: the JSON-RPC layer adds transactions,
 * the consensus engine takes executable ones for a block and reports what it committed.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';

/** Nonces and balances of one committed state. */
export interface AccountReads {
  getNonce(address: Address): Promise<bigint>;
  /** Balance in wei. */
  getBalance(address: Address): Promise<bigint>;
}

/** What the pool needs to know about the latest committed state (reads at the head). */
export interface PoolStateView extends AccountReads {
  /** Base fee the next block will have (wei). */
  nextBaseFee(): bigint;
  /** Gas limit of the next block. */
  blockGasLimit(): bigint;
}

/** Works out transactions' senders ahead of admission, off the thread that admits them. */
export interface SenderRecoverer {
  /**
   * Recovers the sender of a signed transaction into the transaction's own cache, where
   * `getSenderPublicKey()` finds it, and its address where `senderAddressOf` does
   * (`crypto/sender-address.ts`). Never rejects: a transaction it cannot help with is left as
   * it was, and admission recovers (or refuses) it in-process.
   */
  prepare(tx: TypedTransaction, encoded: Uint8Array): Promise<void>;
}

export interface PoolLimits {
  /**
   * Most queued (nonce-gap) transactions one sender may hold (geth: accountqueue 64).
   * Executable transactions are bounded by the global limit only, so a sender sending in
   * nonce order is never refused while the pool has room, and a gap can always be filled.
   */
  perSenderQueued: number;
  /** Most transactions in the whole pool (geth: globalslots 5120 + globalqueue 1024). */
  globalSlots: number;
  /** Minimum fee bump, in percent, to replace a transaction with the same sender and nonce. */
  priceBumpPercent: number;
  /** Largest accepted transaction, in bytes of its serialized form. */
  maxTxBytes: number;
  /**
   * How long a queued (nonce-gap) transaction may wait, in ms, before
   * the pool's `dropExpiredQueued` drops it (geth: lifetime 3h).
   */
  queuedLifetimeMs: number;
}

export interface PoolStatus {
  pending: number;
  queued: number;
}

/** A transaction the pool accepted, with facts computed once at admission. */
export interface PooledTransaction {
  tx: TypedTransaction;
  hash: Uint8Array;
  hashHex: string;
  sender: Address;
  senderHex: string;
  nonce: bigint;
  /** Unix ms when the pool accepted it. */
  addedAt: number;
  /** `tx.serialize()`, made once at admission; block assembly uses it for the block's tries. */
  encoded?: Uint8Array;
}

/** A transaction the pool took in, and when it is safe to acknowledge. */
export interface Admission {
  pooled: PooledTransaction;
  /**
   * Resolves once the transaction is journaled (on disk), the moment it may be acknowledged;
   * rejects with `ServerError` when the journal could not write it, and the pool lets it go.
   */
  durable: Promise<void>;
}

export interface TxPoolApi {
  /**
   * Validates and admits a signed transaction; returns its hash. Throws
   * `TransactionRejectedError` (geth's wording: "nonce too low", "insufficient funds for gas *
   * price + value", "replacement transaction underpriced", "transaction underpriced",
   * "intrinsic gas too low", "exceeds block gas limit", "txpool is full", "already known",
   * "invalid chain id", "invalid sender") or `InvalidInputError` for malformed input.
   * `received`: the bytes `tx` was decoded from, which then serve as its encoding.
   */
  add(tx: TypedTransaction, received?: Uint8Array): Promise<PooledTransaction>;
  /**
   * `add` in two steps, for callers that admit one transaction after another and should not
   * wait for each to reach the disk in between: resolves once the transaction is pooled (it
   * counts for `pendingNonce` from then on), with the promise of its durability. Rejects as
   * `add` does. `journal: false` keeps it out of the journal (an impersonated transaction,
   * whose sender has no key to journal); `received` is as for `add`.
   */
  admit(
    tx: TypedTransaction,
    options?: { journal?: boolean; received?: Uint8Array },
  ): Promise<Admission>;
  /** Executable transactions in the order a block should include them. */
  executable(): PooledTransaction[];
  /**
   * Called by the consensus engine once a block is committed, before readers see it: drops
   * included and stale transactions, promotes queued ones that became executable, re-checks
   * balances, all against `state`, the block's post-state. `changedAccounts` are re-checked
   * too (accounts a development setter changed).
   */
  onBlockCommitted(
    includedHashes: readonly string[],
    state: AccountReads,
    changedAccounts?: readonly Address[],
  ): Promise<void>;
  /** Drops a transaction that failed to execute as invalid at block time. */
  drop(hashHex: string): void;
  /** Empties the pool (a development rewind); resolves with the hashes dropped. */
  dropAll(): Promise<string[]>;
  getByHash(hashHex: string): PooledTransaction | undefined;
  /** Whether the transaction is pooled and executable by nonce (not waiting behind a gap). */
  isPending(hashHex: string): boolean;
  /** Pending transactions (executable by nonce) and queued ones (nonce gaps), by sender. */
  pendingBySender(): Map<string, PooledTransaction[]>;
  queuedBySender(): Map<string, PooledTransaction[]>;
  /** Next nonce a sender would use, counting its pending transactions ('pending' block tag). */
  pendingNonce(address: Address): Promise<bigint>;
  status(): PoolStatus;
  /**
   * Admissions begun and not yet decided: transactions handed to the pool whose sender is being
   * recovered or whose turn in the admission queue has not come.
   */
  admitting(): number;
  /** Listeners for each newly pending transaction (filters and subscriptions). */
  onPending(listener: (tx: PooledTransaction) => void): () => void;
}
