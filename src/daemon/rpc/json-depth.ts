/**
 * A linear pre-scan of JSON text for its nesting depth, run before `JSON.parse`. V8 parses a
 * document millions of levels deep (a 5 MB body of `[` takes seconds and hundreds of MB), and
 * anything that walks the parsed value recursively overflows its stack on it; counting the
 * brackets first costs one pass over the characters and no allocation.
 *
 * The scan does not validate: it counts `[` and `{` outside string literals, minus their
 * closers, and stops as soon as the count passes the limit. Malformed text is left to
 * `JSON.parse`, which reports it as it always did.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Whether `text` nests arrays and objects more than `limit` levels deep. */
export function exceedsJsonDepth(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i);
      // An unterminated string holds no more brackets; JSON.parse reports it.
      if (i === -1) return false;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/**
 * Where the string literal opened at `open` ends, or -1 if it does not. Request bodies are
 * mostly string content (hex data, queries), which `indexOf` skips natively rather than one
 * character per loop step (a third of the time the consensus WebSocket spent on a 450 KB
 * query). A quote ends the string unless an odd run of backslashes escapes it; counting a run
 * back stops at the quote before it, so the whole scan stays linear.
 */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** The message of the refusal, naming the limit and the option that sets it. */
export function nestingTooDeepMessage(limit: number, flag: string): string {
  return `invalid request: JSON nesting depth exceeds ${limit} (${flag})`;
}
