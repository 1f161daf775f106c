import { InvalidInputError } from '../../../shared/errors.js';

/**
 * A query string that is not in the CometBFT event query language. The message names the
 * offset (in characters, from 0) where reading stopped and what was expected there, e.g.
 * `query parse error at offset 14: expected an operator (=, <, <=, >, >=, CONTAINS, EXISTS), found "=="`.
 */
export class QuerySyntaxError extends InvalidInputError {
  /** Offset of the offending input, counted in characters from the start of the query. */
  readonly offset: number;

  constructor(offset: number, detail: string) {
    super(`query parse error at offset ${offset}: ${detail}`);
    this.offset = offset;
  }
}

/** How an error message shows the input it stopped at: quoted text, or the end of the query. */
export function describeFound(text: string): string {
  return text === '' ? 'end of query' : `"${text}"`;
}
