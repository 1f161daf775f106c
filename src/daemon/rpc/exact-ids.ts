/**
 * Request ids echoed exactly as they were written. JSON.parse reads every number as a double,
 * so an id of 18446744073709551615 would come back as 18446744073709552000 and 1.50 as 1.5,
 * and a client matching answers to requests by id would not find its own. geth echoes the id's
 * bytes. Only when a parsed request has such an id (a number that is not a safe integer) is the
 * text scanned again for the ids' own digits, so ordinary traffic pays nothing; a safe integer
 * written another way (`1e1`) comes back in its plain form (`10`).
 */

/** The id text to echo, for request objects whose numeric id JavaScript does not carry exactly. */
const exactIds = new WeakMap<object, string>();

function inexactId(message: unknown): boolean {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'number' && !Number.isSafeInteger(id);
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i;
}

const NUMBER_START = /[-0-9]/;
const NUMBER_CHARACTER = /[0-9eE+\-.]/;

/**
 * The text of the numeric `id` member of each request object in `text` (valid JSON: one
 * request, or a batch), by the request's place in the batch (0 for a single request).
 */
export function numericIdTexts(text: string): Map<number, string> {
  const found = new Map<number, string>();
  const batch = text.trimStart().startsWith('[');
  const requestDepth = batch ? 2 : 1;
  let depth = 0;
  let element = 0;
  let inRequest = false;
  let expectKey = false;
  let key: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (inRequest && depth === requestDepth && expectKey) {
        key = JSON.parse(text.slice(i, end + 1)) as string;
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth += 1;
      if (depth === requestDepth) {
        inRequest = c === '{';
        expectKey = inRequest;
        key = undefined;
      }
    } else if (c === '}' || c === ']') {
      if (depth === requestDepth) inRequest = false;
      depth -= 1;
    } else if (c === ',') {
      if (batch && depth === 1) element += 1;
      if (inRequest && depth === requestDepth) {
        expectKey = true;
        key = undefined;
      }
    } else if (key === 'id' && inRequest && depth === requestDepth && NUMBER_START.test(c)) {
      let end = i;
      while (end < text.length && NUMBER_CHARACTER.test(text[end])) end += 1;
      found.set(element, text.slice(i, end));
      key = undefined;
      i = end - 1;
    }
  }
  return found;
}

/** Notes the exact id texts of `message` (as parsed from `text`) where they are needed. */
export function noteExactIds(message: unknown, text: string): void {
  // A single request is checked without an array around it: this runs for every request.
  if (Array.isArray(message) ? !message.some(inexactId) : !inexactId(message)) return;
  const requests: unknown[] = Array.isArray(message) ? message : [message];
  for (const [index, idText] of numericIdTexts(text)) {
    const request = requests[index] as object | undefined;
    if (inexactId(request)) exactIds.set(request as object, idText);
  }
}

/** The JSON text of the id of request `message` as its sender wrote it (`null` without one). */
export function idTextOf(message: unknown): string {
  const exact = typeof message === 'object' && message !== null && exactIds.get(message);
  if (exact) return exact;
  return JSON.stringify((message as { id?: unknown } | null)?.id ?? null);
}
