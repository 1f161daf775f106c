/**
 * Recovers transaction senders on worker threads.
 *
 * Recovering the signer's public key is the most expensive step of admitting a transaction
 * (about 50 µs of CPU with libsecp256k1, 250 µs with the WebAssembly fallback), and it needs
 * nothing but the transaction, so it can run beside the thread that serves JSON-RPC. `prepare`
 * hands a transaction's encoding to a worker, which works out from it the digest the signature
 * signs, recovers the key and hashes it into the sender's address; so the main thread spends
 * nothing on the signature but copying the bytes. Once the worker answers, the public key
 * goes into the transaction's own cache (`tx.cache.senderPubKey`, the field EthereumJS fills when
 * it recovers the key itself on a frozen transaction), where everything that reads the sender
 * later (execution, block storage) finds it, and the address where admission reads it
 * (`sender-address.ts`).
 *
 * The answer is always the library's: the worker takes the signature only when the library
 * would take the same path itself (frozen, signed, low `s`, recovery id 0 or 1, so its
 * `customCrypto.ecrecover` would call the same recovery), its digest is the library's (the
 * transaction was decoded by the library first, so its encoding is canonical, and whether a
 * legacy one is EIP-155 signed travels with it), and what it does not recover is left uncached,
 * so the library recovers it (or refuses it) in-process exactly as without workers. Until the
 * workers have started, after one fails, and after `close`, `prepare` resolves at once and
 * admission recovers in-process. Workers start on the first `prepare`, not with the daemon, so
 * start-up does not pay for them.
 *
 * A thread the daemon runs anyway can serve recoveries instead (`lend`): the call threads do,
 * so a daemon with them needs no recovery worker (an isolate of its own, tens of MiB). They run
 * only while wanted, so every `prepare` tells them (`whenWanted`).
 *
 * While the only threads are still starting (the workers, or a lender's thread after an idle
 * spell: 170-250 ms on the benchmark's machine), the first few transactions are recovered
 * in-process, so a lone one does not wait for a thread start; later ones wait for the thread, for
 * at most `STARTING_WAIT_MS`. A
 * burst that began on an idle node otherwise had most of its senders recovered on the main
 * thread (measured: 260-410 ms of it for a burst of 4 000 ERC-20 transfers), the thread that
 * answers requests and builds blocks.
 */
import { availableParallelism } from 'node:os';
import { Worker, type MessagePort } from 'node:worker_threads';
import { Capability, TransactionType } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  ANSWER_ADDRESS_AT,
  ANSWER_ITEM_BYTES,
  EIP155_SIGNED,
  REQUEST_HEADER_BYTES,
} from './recovery-protocol.js';
import type { RecoveryAnswer, RecoveryRequest } from './recovery-protocol.js';
import { rememberSender } from './sender-address.js';

/** More threads than this would only contend with the main thread for the cores. */
const MAX_THREADS = 4;
/**
 * Batches a worker may hold at once. Posting a message costs the main thread more than a few
 * signatures' worth of copying, so while a worker is busy, requests wait and go together; two
 * let the next batch be there when the worker finishes one.
 */
const BATCHES_IN_FLIGHT = 2;

export interface SenderRecoveryOptions {
  /** The compiled worker module, `recovery-worker.js`. */
  workerUrl: URL;
  /**
   * Worker threads to run. Default: one less than the cores available, at most 4; 0 runs none
   * (recoveries go to lent ports, or stay in-process).
   */
  threads?: number;
  /** Told when a worker fails; its transactions, and later ones, are recovered in-process. */
  onWorkerError?: (error: unknown) => void;
}

interface WaitingRecovery {
  tx: TypedTransaction;
  encoded: Uint8Array;
  flags: number;
  done: () => void;
}

/** Where batches go: a worker of this pool, or a port lent by a thread that serves recoveries. */
interface RecoveryEndpoint {
  port: Worker | MessagePort;
  /** Ends it: terminates a worker, closes a lent port. */
  stop(): Promise<unknown>;
  ready: boolean;
  /** Settles when the worker has started or failed. */
  settled: Promise<void>;
  settle: () => void;
  /** Recoveries sent and not answered yet, by batch number. */
  batches: Map<number, WaitingRecovery[]>;
  outstanding: number;
}

const NOTHING_TO_DO = Promise.resolve();

/** Recoveries done in-process while the threads start, before later ones wait for them. */
export const IN_PROCESS_WHILE_STARTING = 32;
/**
 * How long transactions wait for a starting thread before they are recovered in-process after
 * all; a lender that did not lend a port in that time is not waited for again until it does.
 */
export const STARTING_WAIT_MS = 1000;

/**
 * Whether a worker could recover `tx`'s sender: a frozen, signed transaction whose key the
 * library has not cached yet. The worker decides the rest of what the library would (high `s`,
 * recovery ids) and leaves those to it.
 */
function wantsRecovery(tx: TypedTransaction): boolean {
  return Object.isFrozen(tx) && tx.cache.senderPubKey === undefined && tx.isSigned();
}

/** The request items of `items`, one after the other. */
function requestOf(items: readonly WaitingRecovery[]): Uint8Array<ArrayBuffer> {
  const size = items.reduce((sum, item) => sum + REQUEST_HEADER_BYTES + item.encoded.length, 0);
  const buffer = new Uint8Array(size);
  const view = new DataView(buffer.buffer);
  let at = 0;
  for (const item of items) {
    buffer[at] = item.flags;
    view.setUint32(at + 1, item.encoded.length);
    buffer.set(item.encoded, at + REQUEST_HEADER_BYTES);
    at += REQUEST_HEADER_BYTES + item.encoded.length;
  }
  return buffer;
}

/**
 * A pool of sender-recovery worker threads.
 *
 * @example
 * ```ts
 * const recovery = new SenderRecovery({ workerUrl: new URL('./crypto/recovery-worker.js', import.meta.url) });
 * await recovery.prepare(tx, tx.serialize());
 * senderAddressOf(tx); // from the worker's answer when it recovered it
 * await recovery.close();
 * ```
 */
export class SenderRecovery {
  private endpoints: RecoveryEndpoint[] = [];
  private workersStarted = false;
  private waiting: WaitingRecovery[] = [];
  private flushScheduled = false;
  private nextBatch = 0;
  private closed = false;
  private wanted: (() => void) | undefined;
  /** Whether the lender, when told it is wanted, has lent a port before and not failed to since. */
  private lenderExpected = true;
  private inProcessWhileStarting = 0;
  /** Set while transactions wait for a thread to start. */
  private startingDeadline: NodeJS.Timeout | undefined;

  constructor(private readonly options: SenderRecoveryOptions) {}

  /**
   * Recovers the sender of `tx` into its cache on a worker, from `encoded`, the transaction's
   * encoding. Never rejects; resolves without caching anything when the transaction is better
   * left to the library (see the module notes).
   */
  prepare(tx: TypedTransaction, encoded: Uint8Array): Promise<void> {
    this.wanted?.();
    this.startWorkers();
    if (this.closed || !wantsRecovery(tx)) return NOTHING_TO_DO;
    if (!this.endpoints.some((endpoint) => endpoint.ready)) {
      if (!this.threadStarting()) return NOTHING_TO_DO;
      if (this.inProcessWhileStarting < IN_PROCESS_WHILE_STARTING) {
        this.inProcessWhileStarting++;
        return NOTHING_TO_DO;
      }
      this.awaitStart();
    }
    const flags =
      tx.type === TransactionType.Legacy && tx.supports(Capability.EIP155ReplayProtection)
        ? EIP155_SIGNED
        : 0;
    return new Promise((resolve) => {
      this.waiting.push({ tx, encoded, flags, done: resolve });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Requests that arrive in the same turn of the event loop travel as one message.
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Starts the workers if they are not running yet and resolves once each one has either started
   * or failed; from then on `prepare` uses the ones that started.
   */
  async started(): Promise<void> {
    this.startWorkers();
    await Promise.all(this.endpoints.map((endpoint) => endpoint.settled));
  }

  /**
   * Sends recoveries to `port` too, whose other end serves them (`serveRecoveries`), until it
   * closes (the thread behind it stopped); what it still owed is then recovered in-process.
   */
  lend(port: MessagePort): void {
    if (this.closed) {
      port.close();
      return;
    }
    this.lenderExpected = true;
    const endpoint = this.endpoint(port, async () => port.close());
    port.unref();
    port.on('close', () => this.remove(endpoint));
  }

  /**
   * Has `callback` called on every `prepare`, so that a lender of ports that runs its threads on
   * demand starts one, and keeps it, while recoveries are asked for.
   */
  whenWanted(callback: () => void): void {
    this.wanted = callback;
  }

  /** Stops the workers; transactions waiting for them are left to in-process recovery. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopWaitingForStart();
    const endpoints = this.endpoints;
    this.endpoints = [];
    for (const item of this.waiting.splice(0)) item.done();
    for (const endpoint of endpoints) this.release(endpoint);
    await Promise.all(endpoints.map((endpoint) => endpoint.stop()));
  }

  private startWorkers(): void {
    if (this.workersStarted || this.closed) return;
    this.workersStarted = true;
    const count = this.options.threads ?? Math.min(MAX_THREADS, availableParallelism() - 1);
    for (let index = 0; index < count; index++) this.spawn();
  }

  private spawn(): void {
    const worker = new Worker(this.options.workerUrl);
    const endpoint = this.endpoint(worker, () => worker.terminate());
    // An idle worker must not keep the daemon's process alive.
    worker.unref();
    worker.on('error', (error) => this.failed(endpoint, error));
    worker.on('exit', (code) =>
      this.failed(endpoint, new Error(`recovery worker exited (${code})`)),
    );
  }

  private endpoint(port: Worker | MessagePort, stop: () => Promise<unknown>): RecoveryEndpoint {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const endpoint: RecoveryEndpoint = {
      port,
      stop,
      ready: false,
      settled,
      settle,
      batches: new Map(),
      outstanding: 0,
    };
    port.on('message', (answer: RecoveryAnswer) => this.answered(endpoint, answer));
    this.endpoints.push(endpoint);
    return endpoint;
  }

  /** Whether a thread that will serve recoveries is on its way: a worker or a lent port. */
  private threadStarting(): boolean {
    return this.endpoints.length > 0 || (this.wanted !== undefined && this.lenderExpected);
  }

  /** Lets waiting transactions go in-process if no thread is ready within STARTING_WAIT_MS. */
  private awaitStart(): void {
    if (this.startingDeadline !== undefined) return;
    this.startingDeadline = setTimeout(() => {
      this.startingDeadline = undefined;
      if (this.endpoints.length === 0) this.lenderExpected = false;
      this.flush();
    }, STARTING_WAIT_MS);
    this.startingDeadline.unref();
  }

  private stopWaitingForStart(): void {
    clearTimeout(this.startingDeadline);
    this.startingDeadline = undefined;
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.waiting.length === 0) return;
    if (!this.endpoints.some((endpoint) => endpoint.ready)) {
      if (this.startingDeadline !== undefined && this.threadStarting()) return;
      for (const item of this.waiting.splice(0)) item.done();
      return;
    }
    const endpoint = this.leastBusy();
    // Every endpoint is busy: the requests go with the next answer.
    if (endpoint === undefined) return;
    const items = this.waiting.splice(0);
    const buffer = requestOf(items);
    const batch = this.nextBatch++;
    endpoint.batches.set(batch, items);
    endpoint.outstanding += items.length;
    const request: RecoveryRequest = { batch, items: buffer };
    endpoint.port.postMessage(request, [buffer.buffer]);
  }

  private leastBusy(): RecoveryEndpoint | undefined {
    let best: RecoveryEndpoint | undefined;
    for (const endpoint of this.endpoints) {
      if (!endpoint.ready || endpoint.batches.size >= BATCHES_IN_FLIGHT) continue;
      if (best === undefined || endpoint.outstanding < best.outstanding) {
        best = endpoint;
      }
    }
    return best;
  }

  private answered(endpoint: RecoveryEndpoint, answer: RecoveryAnswer): void {
    if (answer.kind === 'ready') {
      endpoint.ready = true;
      endpoint.settle();
      this.stopWaitingForStart();
      this.inProcessWhileStarting = 0;
      this.flush();
      return;
    }
    const items = endpoint.batches.get(answer.batch);
    if (items === undefined) return;
    endpoint.batches.delete(answer.batch);
    endpoint.outstanding -= items.length;
    items.forEach((item, index) => {
      const at = index * ANSWER_ITEM_BYTES;
      if (answer.items[at] === 1) {
        item.tx.cache.senderPubKey = answer.items.slice(at + 1, at + ANSWER_ADDRESS_AT);
        rememberSender(item.tx, answer.items.slice(at + ANSWER_ADDRESS_AT, at + ANSWER_ITEM_BYTES));
      }
      item.done();
    });
    this.flush();
  }

  private failed(endpoint: RecoveryEndpoint, error: unknown): void {
    if (!this.remove(endpoint)) return;
    this.options.onWorkerError?.(error);
    void endpoint.stop();
  }

  /** Takes `endpoint` out of service; false if it was already out. */
  private remove(endpoint: RecoveryEndpoint): boolean {
    const index = this.endpoints.indexOf(endpoint);
    if (index === -1) return false;
    this.endpoints.splice(index, 1);
    this.release(endpoint);
    this.flush();
    return true;
  }

  /** Lets everything an endpoint still owes go ahead with in-process recovery. */
  private release(endpoint: RecoveryEndpoint): void {
    endpoint.ready = false;
    endpoint.settle();
    for (const items of endpoint.batches.values()) for (const item of items) item.done();
    endpoint.batches.clear();
    endpoint.outstanding = 0;
  }
}
