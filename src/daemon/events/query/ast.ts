/**
 * The parsed form of a CometBFT event query: a list of conditions that must all hold. Operands
 * carry both the text they were written as (for the canonical form) and their value.
 */
import type { Decimal } from './decimal.js';

/** The comparison operators that take an operand. */
export type ComparisonOperator = '=' | '<' | '<=' | '>' | '>=';

/** The comparison operators that order values, and so take no string operand. */
export type OrderOperator = Exclude<ComparisonOperator, '='>;

/** A single-quoted string; `value` is the text between the quotes. */
export interface StringOperand {
  readonly kind: 'string';
  readonly value: string;
}

/** A decimal number as written (`-7`, `3.25`). */
export interface NumberOperand {
  readonly kind: 'number';
  readonly text: string;
  readonly value: Decimal;
}

/** `DATE YYYY-MM-DD`; `text` is the date, `instant` its midnight UTC in ns since the epoch. */
export interface DateOperand {
  readonly kind: 'date';
  readonly text: string;
  readonly instant: bigint;
}

/** `TIME <RFC 3339>`; `text` is the time, `instant` in ns since the epoch. */
export interface TimeOperand {
  readonly kind: 'time';
  readonly text: string;
  readonly instant: bigint;
}

/** Any operand. */
export type Operand = StringOperand | NumberOperand | DateOperand | TimeOperand;

/** The operands an ordering comparison accepts. */
export type OrderedOperand = NumberOperand | DateOperand | TimeOperand;

/** One `<key> <operator> [<operand>]` condition; the union admits only valid combinations. */
export type Condition =
  | { readonly key: string; readonly operator: 'EXISTS' }
  | { readonly key: string; readonly operator: 'CONTAINS'; readonly operand: StringOperand }
  | { readonly key: string; readonly operator: '='; readonly operand: Operand }
  | { readonly key: string; readonly operator: OrderOperator; readonly operand: OrderedOperand };

/** A whole query: the conjunction of at least one condition. */
export type QueryAst = readonly Condition[];
