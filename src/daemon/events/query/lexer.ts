/**
 * Splits a query into tokens, one at a time, so that errors surface in reading order.
 *
 * Keys are runs of letters, digits, `.`, `_` and `-` that start with a letter or `_`. The words
 * AND, CONTAINS and EXISTS are keywords in any letter case; DATE and TIME followed by whitespace
 * introduce a date or time operand. Characters that fit no token become `invalid` tokens, so the
 * parser can say what it expected in their place; only malformed operands (an unterminated
 * string, a bad number, date or time) are reported here.
 */
import type { ComparisonOperator, Operand } from './ast.js';
import { parseDecimal } from './decimal.js';
import { QuerySyntaxError, describeFound } from './syntax-error.js';
import { parseDateStamp, parseTimeStamp, stampYear } from './timestamp.js';

/** A token; `text` is the exact input it was read from, `offset` where that input starts. */
export type Token =
  | {
      readonly kind: 'key' | 'and' | 'contains' | 'exists' | 'invalid' | 'end';
      readonly text: string;
      readonly offset: number;
    }
  | {
      readonly kind: 'operator';
      readonly text: string;
      readonly offset: number;
      readonly operator: ComparisonOperator;
    }
  | {
      readonly kind: 'operand';
      readonly text: string;
      readonly offset: number;
      readonly operand: Operand;
    };

const WHITESPACE = /\s*/y;
const WORD = /[\p{L}_][\p{L}\p{Nd}._-]*/uy;
// A number and whatever is glued to it, so that `5abc` is reported whole rather than as `5`.
const NUMBER_RUN = /-?\d[\p{L}\p{Nd}._-]*/uy;
const SYMBOL_RUN = /[<>=!]+/y;
const STAMP = /\S*/y;
const ANY_CHARACTER = /./suy;

type KeywordKind = 'and' | 'contains' | 'exists';

const KEYWORDS: ReadonlyMap<string, KeywordKind> = new Map<string, KeywordKind>([
  ['AND', 'and'],
  ['CONTAINS', 'contains'],
  ['EXISTS', 'exists'],
]);
/** The length of the longest word with a meaning of its own (CONTAINS; DATE and TIME are shorter). */
const LONGEST_KEYWORD = Math.max(...[...KEYWORDS.keys()].map((word) => word.length));
const OPERATORS: readonly ComparisonOperator[] = ['=', '<', '<=', '>', '>='];
// CometBFT refuses stamps outside these years; keeping the rule keeps queries portable.
const FIRST_YEAR = 1900;
const LAST_YEAR = 2999;

/** Reads the tokens of one query string. */
export class Lexer {
  private position = 0;

  constructor(private readonly input: string) {}

  /** The next token; after the last one, an `end` token at the input's length, repeatedly. */
  next(): Token {
    this.position = this.matchAt(WHITESPACE, this.position)?.end ?? this.position;
    const offset = this.position;
    if (offset >= this.input.length) return { kind: 'end', text: '', offset };
    const first = this.input[offset];
    if (first === "'") return this.readString(offset);
    if (first === '"') {
      throw new QuerySyntaxError(offset, "double quotes are not allowed; quote strings with '");
    }
    if (/\d/.test(first) || (first === '-' && /\d/.test(this.input[offset + 1] ?? ''))) {
      return this.readNumber(offset);
    }
    const word = this.matchAt(WORD, offset);
    if (word !== undefined) return this.readWord(word.text, offset);
    const symbols = this.matchAt(SYMBOL_RUN, offset);
    if (symbols !== undefined) return this.readSymbols(symbols.text, offset);
    const character = this.matchAt(ANY_CHARACTER, offset);
    return this.take({ kind: 'invalid', text: character?.text ?? first, offset });
  }

  private readString(offset: number): Token {
    const close = this.input.indexOf("'", offset + 1);
    if (close < 0) {
      throw new QuerySyntaxError(offset, "unterminated string, expected a closing '");
    }
    const text = this.input.slice(offset, close + 1);
    return this.take({
      kind: 'operand',
      text,
      offset,
      operand: { kind: 'string', value: text.slice(1, -1) },
    });
  }

  private readNumber(offset: number): Token {
    const text = this.matchAt(NUMBER_RUN, offset)?.text ?? '';
    const value = parseDecimal(text);
    if (value === undefined) throw new QuerySyntaxError(offset, `malformed number "${text}"`);
    return this.take({ kind: 'operand', text, offset, operand: { kind: 'number', text, value } });
  }

  private readWord(text: string, offset: number): Token {
    // Most words are keys, often long ones; no keyword is longer than CONTAINS.
    if (text.length > LONGEST_KEYWORD) return this.take({ kind: 'key', text, offset });
    const upper = text.toUpperCase();
    const keyword = KEYWORDS.get(upper);
    if (keyword !== undefined) return this.take({ kind: keyword, text, offset });
    if (
      (upper === 'DATE' || upper === 'TIME') &&
      /\s/.test(this.input[offset + text.length] ?? '')
    ) {
      return this.readStamp(upper, offset, offset + text.length);
    }
    return this.take({ kind: 'key', text, offset });
  }

  private readStamp(label: 'DATE' | 'TIME', offset: number, afterLabel: number): Token {
    const stampOffset = this.matchAt(WHITESPACE, afterLabel)?.end ?? afterLabel;
    const stamp = this.matchAt(STAMP, stampOffset)?.text ?? '';
    const instant = label === 'DATE' ? parseDateStamp(stamp) : parseTimeStamp(stamp);
    if (instant === undefined) {
      const expected =
        label === 'DATE' ? 'a date YYYY-MM-DD' : 'an RFC 3339 time like 2013-05-03T14:45:00Z';
      throw new QuerySyntaxError(
        stampOffset,
        `expected ${expected} after ${label}, found ${describeFound(stamp)}`,
      );
    }
    const year = stampYear(stamp);
    if (year < FIRST_YEAR || year > LAST_YEAR) {
      throw new QuerySyntaxError(
        stampOffset,
        `${label} year ${year} is out of range (${FIRST_YEAR} to ${LAST_YEAR})`,
      );
    }
    const kind = label === 'DATE' ? 'date' : 'time';
    return this.take({
      kind: 'operand',
      text: this.input.slice(offset, stampOffset + stamp.length),
      offset,
      operand: { kind, text: stamp, instant },
    });
  }

  private readSymbols(text: string, offset: number): Token {
    if (isComparisonOperator(text)) {
      return this.take({ kind: 'operator', text, offset, operator: text });
    }
    return this.take({ kind: 'invalid', text, offset });
  }

  private take(token: Token): Token {
    this.position = token.offset + token.text.length;
    return token;
  }

  private matchAt(pattern: RegExp, offset: number): { text: string; end: number } | undefined {
    pattern.lastIndex = offset;
    const match = pattern.exec(this.input);
    return match === null ? undefined : { text: match[0], end: offset + match[0].length };
  }
}

function isComparisonOperator(text: string): text is ComparisonOperator {
  return (OPERATORS as readonly string[]).includes(text);
}
