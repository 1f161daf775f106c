/**
 * Decides whether a parsed query matches an event set, with CometBFT's semantics:
 *
 * - Events arrive flattened, `"<type>.<attribute>"` to the list of that attribute's values
 *   (`tm.event` to `['Tx']`). A condition holds if ANY value of its key satisfies it, and a
 *   query matches if every condition holds. An empty event set matches nothing.
 * - A key that names an event type rather than an attribute (`ethereum_tx` when
 *   `ethereum_tx.sender` is present) is tested against the empty string, so `ethereum_tx EXISTS`
 *   asks whether such an event happened.
 * - Number operands compare with the number at the start of the value (`100stake` is 100);
 *   values that do not start with a number never match. DATE and TIME operands compare, as
 *   instants, with values written in that same form; other values never match.
 * - `=` on strings is exact and CONTAINS is a substring test, except on the keys the caller
 *   names as case-insensitive (addresses, whose hex letters may come in either case).
 *
 * Conditions are compiled once into predicates, since one subscription's query is matched
 * against every event the node publishes.
 */
import type { Condition, OrderedOperand, QueryAst } from './ast.js';
import { compareDecimals, leadingDecimal } from './decimal.js';
import { parseDateStamp, parseTimeStamp } from './timestamp.js';

/** Flattened events: `"<type>.<attribute>"` to every value that attribute took. */
export type EventSet = Readonly<Record<string, readonly string[]>>;

/** How string comparisons behave. */
export interface MatchOptions {
  /**
   * Keys (e.g. `ethereum_tx.sender`, `ethereum_tx.recipient`) whose values are compared
   * ignoring letter case by `=` and CONTAINS.
   */
  readonly caseInsensitiveKeys?: ReadonlySet<string>;
}

/** Reports whether an event set satisfies a query. */
export type EventMatcher = (events: EventSet) => boolean;

type ValueTest = (value: string) => boolean;
type ConditionTest = (entries: ReadonlyArray<readonly [string, readonly string[]]>) => boolean;

/** Compiles a query into a function that tells whether an event set matches it. */
export function compileMatcher(conditions: QueryAst, options: MatchOptions = {}): EventMatcher {
  const tests = conditions.map((condition) => compileCondition(condition, options));
  return (events) => {
    const entries = Object.entries(events);
    return entries.length > 0 && tests.every((test) => test(entries));
  };
}

function compileCondition(condition: Condition, options: MatchOptions): ConditionTest {
  const { key } = condition;
  const test = compileValueTest(condition, options.caseInsensitiveKeys?.has(key) ?? false);
  return (entries) =>
    entries.some(([eventKey, values]) => {
      const lastDot = eventKey.lastIndexOf('.');
      // CometBFT splits a flattened key at its last dot; without one there is no type, and no
      // query key can name the attribute.
      if (lastDot < 0) return false;
      if (eventKey === key) return values.some(test);
      return eventKey.slice(0, lastDot) === key && test('');
    });
}

function compileValueTest(condition: Condition, ignoreCase: boolean): ValueTest {
  const fold = ignoreCase ? (text: string) => text.toLowerCase() : (text: string) => text;
  switch (condition.operator) {
    case 'EXISTS':
      return () => true;
    case 'CONTAINS': {
      const needle = fold(condition.operand.value);
      return (value) => fold(value).includes(needle);
    }
    case '=': {
      const { operand } = condition;
      if (operand.kind === 'string') {
        const expected = fold(operand.value);
        return (value) => fold(value) === expected;
      }
      return compileOrderTest(operand, (order) => order === 0);
    }
    case '<':
      return compileOrderTest(condition.operand, (order) => order < 0);
    case '<=':
      return compileOrderTest(condition.operand, (order) => order <= 0);
    case '>':
      return compileOrderTest(condition.operand, (order) => order > 0);
    case '>=':
      return compileOrderTest(condition.operand, (order) => order >= 0);
  }
}

/** A test on how a value orders against the operand (negative: the value is smaller). */
function compileOrderTest(operand: OrderedOperand, accept: (order: number) => boolean): ValueTest {
  switch (operand.kind) {
    case 'number':
      return (value) => {
        const number = leadingDecimal(value);
        return number !== undefined && accept(compareDecimals(number, operand.value));
      };
    case 'date':
      return instantTest(parseDateStamp, operand.instant, accept);
    case 'time':
      return instantTest(parseTimeStamp, operand.instant, accept);
  }
}

function instantTest(
  parse: (value: string) => bigint | undefined,
  instant: bigint,
  accept: (order: number) => boolean,
): ValueTest {
  return (value) => {
    const parsed = parse(value);
    return parsed !== undefined && accept(parsed < instant ? -1 : parsed > instant ? 1 : 0);
  };
}
