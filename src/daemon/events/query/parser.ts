/**
 * Recursive-descent parser for the CometBFT event query language:
 *
 *     query      = condition { AND condition } end
 *     condition  = key ( EXISTS | CONTAINS string | "=" operand | order ordered )
 *     order      = "<" | "<=" | ">" | ">="
 *     operand    = string | number | DATE date | TIME time
 *     ordered    = number | DATE date | TIME time
 *
 * Each error names the offset of the token that broke the rule and what would have fitted.
 */
import type { Condition, Operand, OrderedOperand, QueryAst, StringOperand } from './ast.js';
import { Lexer } from './lexer.js';
import type { Token } from './lexer.js';
import { QuerySyntaxError, describeFound } from './syntax-error.js';

const EXPECTED_OPERATOR = 'an operator (=, <, <=, >, >=, CONTAINS, EXISTS)';

/** Parses a whole query, or throws a {@link QuerySyntaxError}. */
export function parseConditions(text: string): QueryAst {
  const lexer = new Lexer(text);
  const conditions: Condition[] = [parseCondition(lexer)];
  for (let token = lexer.next(); token.kind !== 'end'; token = lexer.next()) {
    if (token.kind !== 'and') throw unexpected(token, 'AND or end of query');
    conditions.push(parseCondition(lexer));
  }
  return conditions;
}

function parseCondition(lexer: Lexer): Condition {
  const keyToken = lexer.next();
  if (keyToken.kind !== 'key') throw unexpected(keyToken, 'a key (e.g. tm.event)');
  const key = keyToken.text;
  const operatorToken = lexer.next();
  switch (operatorToken.kind) {
    case 'exists':
      return { key, operator: 'EXISTS' };
    case 'contains':
      return { key, operator: 'CONTAINS', operand: readStringOperand(lexer) };
    case 'operator': {
      const { operator } = operatorToken;
      if (operator === '=') return { key, operator, operand: readAnyOperand(lexer) };
      return { key, operator, operand: readOrderedOperand(lexer, operator) };
    }
    default:
      throw unexpected(operatorToken, EXPECTED_OPERATOR);
  }
}

function readStringOperand(lexer: Lexer): StringOperand {
  const token = lexer.next();
  if (token.kind === 'operand' && token.operand.kind === 'string') return token.operand;
  throw unexpected(token, 'a quoted string after CONTAINS');
}

function readAnyOperand(lexer: Lexer): Operand {
  const token = lexer.next();
  if (token.kind === 'operand') return token.operand;
  throw unexpected(token, 'a value (quoted string, number, DATE or TIME) after =');
}

function readOrderedOperand(lexer: Lexer, operator: string): OrderedOperand {
  const token = lexer.next();
  if (token.kind === 'operand' && token.operand.kind !== 'string') return token.operand;
  throw unexpected(token, `a number, DATE or TIME after ${operator}`);
}

function unexpected(token: Token, expected: string): QuerySyntaxError {
  return new QuerySyntaxError(
    token.offset,
    `expected ${expected}, found ${describeFound(token.text)}`,
  );
}
