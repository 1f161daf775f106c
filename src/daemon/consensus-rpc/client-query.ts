/**
 * The queries clients send to `subscribe`, `unsubscribe` and `tx_search`, parsed with the
 * consensus RPC's limits. A query is matched against every event of every block for as long as
 * its subscription lives and echoed with each event it matches, so its size is bounded before
 * any parsing (`--rpc.max-query-length`, CometBFT's 512 bytes by default), and the number of
 * its conditions once parsed, which the length bound already keeps cheap
 * (`--rpc.max-query-conditions`).
 */
import { InvalidInputError, LimitExceededError } from '../../shared/errors.js';
import { parseQuery, type Query } from '../events/query/index.js';

export interface QueryLimits {
  /** Longest query text, in UTF-8 bytes. */
  maxLength: number;
  /** Most conditions joined by AND. */
  maxConditions: number;
}

/** Keys whose values are addresses, compared ignoring letter case (decisions §6). */
const ADDRESS_KEYS: ReadonlySet<string> = new Set(['ethereum_tx.sender', 'ethereum_tx.recipient']);

/**
 * Parses a client's query.
 *
 * @throws {LimitExceededError} when the query is longer or has more conditions than allowed.
 * @throws {InvalidInputError} "failed to parse query: …" when it is not a valid query.
 */
export function parseClientQuery(text: string, limits: QueryLimits): Query {
  // A string's UTF-16 length never exceeds its UTF-8 size, so a long text is refused unmeasured.
  if (text.length > limits.maxLength || Buffer.byteLength(text) > limits.maxLength) {
    throw new LimitExceededError(
      `maximum query length exceeded: more than ${limits.maxLength} bytes (--rpc.max-query-length)`,
    );
  }
  let query: Query;
  try {
    query = parseQuery(text, { caseInsensitiveKeys: ADDRESS_KEYS });
  } catch (error) {
    throw new InvalidInputError(`failed to parse query: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (query.conditions.length > limits.maxConditions) {
    throw new LimitExceededError(
      `too many conditions in query: ${query.conditions.length}, the limit is ${limits.maxConditions} (--rpc.max-query-conditions)`,
    );
  }
  return query;
}
