/**
 * The canonical text of a query, in the form CometBFT prints it: single spaces around each
 * operator, keywords upper case, conditions joined by ` AND `. Parsing the canonical text gives
 * the same query back.
 */
import type { Condition, Operand, QueryAst } from './ast.js';

/** Canonical text of a whole query. */
export function formatQuery(conditions: QueryAst): string {
  return conditions.map(formatCondition).join(' AND ');
}

/** Canonical text of one condition. */
export function formatCondition(condition: Condition): string {
  if (condition.operator === 'EXISTS') return `${condition.key} EXISTS`;
  return `${condition.key} ${condition.operator} ${formatOperand(condition.operand)}`;
}

function formatOperand(operand: Operand): string {
  switch (operand.kind) {
    case 'string':
      return `'${operand.value}'`;
    case 'number':
      return operand.text;
    case 'date':
      return `DATE ${operand.text}`;
    case 'time':
      return `TIME ${operand.text}`;
  }
}
