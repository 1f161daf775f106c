/**
 * Historical log queries (`eth_getLogs`, `eth_getFilterLogs`): resolves the block range the way
 * geth does, enforces the range and result limits, asks the log index which blocks can match
 * and reads only their logs (through `ServedLogs`, which keeps recently queried ones).
 */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { ChainReader } from '../chain/chain-reader.js';
import { InvalidInputError, LimitExceededError, NotFoundError } from '../../shared/errors.js';
import type { LogIndex } from './log-index.js';
import { hexLogMatcher, type LogCriteria, type LogFilter } from './log-filter.js';
import type { ServedLog, ServedLogs } from './served-logs.js';

export interface LogQueryLimits {
  /** Most blocks one query may span (`json-rpc.block-range-cap`). */
  blockRangeCap: number;
  /** Most logs one query may return (`json-rpc.logs-cap`). */
  logsCap: number;
}

/** How a range reaching past the head is treated. */
export type BeyondHead = 'refuse' | 'clamp';

const NUMBER = /^0x[0-9a-fA-F]+$/;

function resolveBound(selector: string, head: bigint): bigint {
  if (NUMBER.test(selector)) return BigInt(selector);
  return selector === 'earliest' ? 0n : head;
}

export class LogQuery {
  constructor(
    private readonly chain: ChainReader,
    private readonly index: LogIndex,
    private readonly limits: LogQueryLimits,
    private readonly served: ServedLogs,
  ) {}

  /**
   * Logs selected by `filter`, in chain order. `beyondHead` says whether a range reaching past
   * the head is refused (`eth_getLogs`, as geth and the execution-API tests do) or cut at the
   * head (`eth_getFilterLogs`, whose filter may have been installed for future blocks).
   */
  logs(filter: LogFilter, beyondHead: BeyondHead = 'refuse'): ServedLog[] {
    if (filter.kind === 'block') {
      const block = this.chain.getBlockByHash(hexToBytes(filter.blockHash as PrefixedHexString));
      if (block === undefined) throw new NotFoundError('unknown block');
      return this.collect(filter.criteria, [block.number]);
    }
    const range = this.resolveRange(filter.fromBlock, filter.toBlock, beyondHead);
    if (range === undefined) return [];
    const [from, to] = range;
    const blocks: Array<bigint | number> = this.index.candidateBlocks(filter.criteria, from, to);
    // Read after the candidates: an index found damaged while reading them drops to -1.
    const indexed = this.index.indexedHeight;
    for (let number = from > indexed ? from : indexed + 1n; number <= to; number++) {
      blocks.push(number);
    }
    return this.collect(filter.criteria, blocks);
  }

  private resolveRange(
    fromBlock: string,
    toBlock: string,
    beyondHead: BeyondHead,
  ): [bigint, bigint] | undefined {
    if (NUMBER.test(fromBlock) && NUMBER.test(toBlock) && BigInt(fromBlock) > BigInt(toBlock)) {
      throw new InvalidInputError('invalid block range params');
    }
    const head = this.chain.head().number;
    const from = resolveBound(fromBlock, head);
    let to = resolveBound(toBlock, head);
    if (from > head || to > head) {
      if (beyondHead === 'refuse') {
        throw new InvalidInputError('block range extends beyond current head block');
      }
      if (from > head) return undefined;
      to = head;
    }
    if (from > to) throw new InvalidInputError('invalid block range params');
    const span = to - from + 1n;
    if (span > BigInt(this.limits.blockRangeCap)) {
      throw new LimitExceededError(
        `block range too large: ${span} blocks requested, the limit is ${this.limits.blockRangeCap} ` +
          '(json-rpc.block-range-cap, flag --json-rpc.block-range-cap)',
      );
    }
    return [from, to];
  }

  private collect(criteria: LogCriteria, blocks: ReadonlyArray<bigint | number>): ServedLog[] {
    const { logsCap } = this.limits;
    const matches = hexLogMatcher(criteria);
    const logs: ServedLog[] = [];
    for (const number of blocks) {
      for (const log of this.served.of(BigInt(number)) ?? []) {
        if (!matches(log)) continue;
        if (logs.length === logsCap) {
          throw new LimitExceededError(
            `query returned more than ${logsCap} logs, narrow the block range or the filter ` +
              '(json-rpc.logs-cap, flag --json-rpc.logs-cap)',
          );
        }
        logs.push(log);
      }
    }
    return logs;
  }
}
