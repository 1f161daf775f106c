/**
 * The CometBFT event query language, as taken by `subscribe` on the consensus WebSocket:
 * conditions such as `tm.event = 'Tx'` or `ethereum_tx.amount > 5` joined by AND.
 *
 * @example
 * ```ts
 * const query = parseQuery("tm.event='Tx' AND ethereum_tx.recipient='0xAbC...'", {
 *   caseInsensitiveKeys: new Set(['ethereum_tx.sender', 'ethereum_tx.recipient']),
 * });
 * query.matches({ 'tm.event': ['Tx'], 'ethereum_tx.recipient': ['0xabc...'] }); // true
 * query.toString(); // "tm.event = 'Tx' AND ethereum_tx.recipient = '0xAbC...'"
 * ```
 */
import type { QueryAst } from './ast.js';
import { formatQuery } from './format.js';
import { compileMatcher } from './matcher.js';
import type { EventMatcher, EventSet, MatchOptions } from './matcher.js';
import { parseConditions } from './parser.js';

export type {
  ComparisonOperator,
  Condition,
  DateOperand,
  NumberOperand,
  Operand,
  OrderOperator,
  OrderedOperand,
  QueryAst,
  StringOperand,
  TimeOperand,
} from './ast.js';
export type { EventSet, MatchOptions } from './matcher.js';
export { QuerySyntaxError } from './syntax-error.js';

/** A parsed, compiled query. */
export class Query {
  private readonly matcher: EventMatcher;
  /** Made when first asked for: a subscription's query is parsed on the request path. */
  private text: string | undefined;

  /** Compiles already-parsed conditions; most callers want {@link parseQuery}. */
  constructor(
    readonly conditions: QueryAst,
    options: MatchOptions = {},
  ) {
    this.matcher = compileMatcher(conditions, options);
  }

  /** Whether the flattened events satisfy every condition. */
  matches(events: EventSet): boolean {
    return this.matcher(events);
  }

  /** The canonical text, e.g. `tm.event = 'Tx' AND ethereum_tx.amount > 5`. */
  toString(): string {
    this.text ??= formatQuery(this.conditions);
    return this.text;
  }
}

/**
 * Parses a query string.
 *
 * @throws {QuerySyntaxError} when the text is not a valid query; the message names the offset.
 */
export function parseQuery(text: string, options: MatchOptions = {}): Query {
  return new Query(parseConditions(text), options);
}
