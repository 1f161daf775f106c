/**
 * Log filters as clients write them (`eth_getLogs`, `eth_newFilter`, `eth_subscribe('logs')`)
 * and the one matching rule every reader of logs applies, so the index, the polling filters and
 * the subscriptions cannot disagree about which log a filter selects.
 *
 * Matching follows geth: the address must be one of the listed ones (none listed: any), and
 * topics are positional: position `i` of the filter constrains topic `i` of the log; `null`, an
 * empty list or a list holding `null` is a wildcard; a filter with more positions than the log
 * has topics does not match it.
 */
import { bytesToHex, equalsBytes, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { InvalidInputError } from '../../shared/errors.js';
import type { ChainLog } from '../chain/types.js';

/** A log filter object as it arrives over JSON-RPC, after schema validation. */
export interface LogFilterObject {
  fromBlock?: string | null;
  toBlock?: string | null;
  address?: string | string[] | null;
  topics?: Array<string | null | Array<string | null>> | null;
  blockHash?: string | null;
  /** The spelling of the node interface spec; geth's JSON decoding accepts it too. */
  blockhash?: string | null;
}

/** What a log must satisfy, in lowercase hex; `undefined` means "any". */
export interface LogCriteria {
  addresses: ReadonlySet<string> | undefined;
  /** One entry per topic position. */
  topics: ReadonlyArray<ReadonlySet<string> | undefined>;
}

/** A parsed filter: either one block by hash or a range of block selectors (tags or numbers). */
export type LogFilter =
  | { kind: 'block'; blockHash: string; criteria: LogCriteria }
  | { kind: 'range'; fromBlock: string; toBlock: string; criteria: LogCriteria };

/** Most topics a log can carry (LOG0 to LOG4), hence most positions a filter may constrain. */
export const MAX_TOPIC_POSITIONS = 4;

function lowercaseSet(values: ReadonlyArray<string | null>): Set<string> | undefined {
  if (values.length === 0 || values.some((value) => value === null)) return undefined;
  return new Set((values as string[]).map((value) => value.toLowerCase()));
}

/** Address and topic constraints of a filter object (block bounds ignored). */
export function logCriteria(filter: LogFilterObject): LogCriteria {
  const { address, topics } = filter;
  const addresses =
    address === undefined || address === null
      ? undefined
      : lowercaseSet(Array.isArray(address) ? address : [address]);
  if ((topics?.length ?? 0) > MAX_TOPIC_POSITIONS) {
    throw new InvalidInputError(
      `invalid argument 0: exceed max topics (a log has at most ${MAX_TOPIC_POSITIONS})`,
    );
  }
  return {
    addresses,
    topics: (topics ?? []).map((entry) =>
      entry === null ? undefined : lowercaseSet(Array.isArray(entry) ? entry : [entry]),
    ),
  };
}

/**
 * Parses a validated filter object. Throws `InvalidInputError` when it names a block hash
 * together with a block range (geth's wording, which the conformance cases expect).
 */
export function parseLogFilter(filter: LogFilterObject): LogFilter {
  const criteria = logCriteria(filter);
  const blockHash = filter.blockHash ?? filter.blockhash ?? undefined;
  const fromBlock = filter.fromBlock ?? undefined;
  const toBlock = filter.toBlock ?? undefined;
  if (blockHash !== undefined) {
    if (fromBlock !== undefined || toBlock !== undefined) {
      throw new InvalidInputError(
        'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
      );
    }
    return { kind: 'block', blockHash: blockHash.toLowerCase(), criteria };
  }
  return {
    kind: 'range',
    fromBlock: fromBlock ?? 'latest',
    toBlock: toBlock ?? 'latest',
    criteria,
  };
}

/** Above this many values a constraint is checked through a set of hex strings. */
const LINEAR_SCAN_LIMIT = 8;

type ValueTest = (bytes: Uint8Array) => boolean;

/**
 * Small constraints compare bytes directly: turning every log's address and topics into hex
 * strings made matching the most expensive step of large queries (garbage, mostly).
 */
function valueTest(values: ReadonlySet<string>): ValueTest {
  if (values.size > LINEAR_SCAN_LIMIT) return (bytes) => values.has(bytesToHex(bytes));
  const options = [...values].map((value) => hexToBytes(value as PrefixedHexString));
  return (bytes) => options.some((option) => equalsBytes(option, bytes));
}

/**
 * Compiles `criteria` into a predicate over a log's address and topics, given how each
 * constraint's set of hex strings tests one value.
 */
function compileCriteria<V>(
  criteria: LogCriteria,
  testOf: (values: ReadonlySet<string>) => (value: V) => boolean,
): (address: V, topics: readonly V[]) => boolean {
  const addressTest = criteria.addresses === undefined ? undefined : testOf(criteria.addresses);
  const topicTests = criteria.topics.map((set) => (set === undefined ? undefined : testOf(set)));
  const positions = topicTests.length;
  return (address, topics) => {
    if (positions > topics.length) return false;
    if (addressTest !== undefined && !addressTest(address)) return false;
    for (let position = 0; position < positions; position++) {
      const test = topicTests[position];
      if (test !== undefined && !test(topics[position])) return false;
    }
    return true;
  };
}

/** Compiles `criteria` into a predicate over logs; build it once per filter, not per log. */
export function logMatcher(criteria: LogCriteria): (log: ChainLog) => boolean {
  const matches = compileCriteria(criteria, valueTest);
  return (log) => matches(log.address.bytes, log.topics);
}

/** A log as queries match it: lowercase 0x-hex of its address and topics. */
export interface HexLog {
  address: string;
  topics: readonly string[];
}

/** `logMatcher` for logs kept in hex, which the criteria sets hold already. */
export function hexLogMatcher(criteria: LogCriteria): (log: HexLog) => boolean {
  const matches = compileCriteria<string>(criteria, (values) => (value) => values.has(value));
  return (log) => matches(log.address, log.topics);
}
