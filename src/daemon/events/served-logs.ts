/**
 * The logs of recently queried blocks, kept the way queries serve them: the lowercase hex of
 * the address and topics that filters match on (slices of the text), and the log's JSON-RPC text.
 *
 * Why: `eth_getLogs` over the same recent blocks is what dashboards and indexers ask again and
 * again, and a log's JSON never changes (blocks are final). Holding that text costs about a
 * third of what decoded receipts with formatted log objects cost, which is what was held for the
 * purpose before, and answering from it needs neither decoding nor serialising.
 */
import { READ_CACHE_IDLE, type ChainReader } from '../chain/chain-reader.js';
import { LruCache } from '../chain/lru-cache.js';
import type { ChainLog } from '../chain/types.js';
import type { HexLog } from './log-filter.js';

/** A log as a query serves it. */
export interface ServedLog extends HexLog {
  /** The log object of the JSON-RPC answer, serialised. */
  json: string;
}

/** Turns a log into its JSON-RPC text (the API layer's formatting). */
export type LogSerialiser = (log: ChainLog) => string;

/** Memory budget of the kept logs: some 12 000 token transfers' `Transfer` logs. */
export const SERVED_LOGS_BYTES = 10 * 2 ** 20;

/** Heap a kept log costs besides its text's characters (objects, arrays, string headers). */
const LOG_OVERHEAD_BYTES = 160;
/** Heap of a slice of the text (the address, each topic): a header, no characters. */
const SLICE_BYTES = 20;
const BLOCK_OVERHEAD_BYTES = 64;

function retainedBytes(logs: readonly ServedLog[]): number {
  let bytes = BLOCK_OVERHEAD_BYTES;
  for (const log of logs) {
    bytes += LOG_OVERHEAD_BYTES + log.json.length + SLICE_BYTES * (1 + log.topics.length);
  }
  return bytes;
}

/**
 * `value` as a slice of `text` when `text` contains it: V8 keeps such a slice as a reference into
 * `text` rather than a copy of its characters, and a log's JSON holds its address and topics.
 */
function sliceOf(text: string, value: string): string {
  const at = text.indexOf(value);
  return at < 0 ? value : text.slice(at, at + value.length);
}

export class ServedLogs {
  private readonly blocks: LruCache<bigint, readonly ServedLog[]>;

  constructor(
    private readonly chain: ChainReader,
    private readonly serialise: LogSerialiser,
    budgetBytes: number = SERVED_LOGS_BYTES,
  ) {
    this.blocks = new LruCache(budgetBytes, retainedBytes, READ_CACHE_IDLE);
  }

  /** The logs of block `number` in block order, or undefined above the head. */
  of(number: bigint): readonly ServedLog[] | undefined {
    const kept = this.blocks.get(number);
    if (kept !== undefined) return kept;
    const logs = this.chain.getBlockLogs(number);
    if (logs === undefined) return undefined;
    const served = logs.map((log) => {
      const json = this.serialise(log);
      return {
        address: sliceOf(json, log.address.toString()),
        topics: log.topics.map((topic) => sliceOf(json, `0x${Buffer.from(topic).toString('hex')}`)),
        json,
      };
    });
    this.blocks.set(number, served);
    return served;
  }

  /** Drops what it kept: after a development rewind a number may name another block. */
  forget(): void {
    this.blocks.clear();
  }
}
