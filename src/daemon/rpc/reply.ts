/**
 * The text of a JSON-RPC answer as the transports send it: one string, or, for a large result,
 * its pieces in order.
 *
 * Why pieces: a large result is already one string when its handler is done (an `eth_getLogs` of
 * 10 000 logs is 5.7 MB). Put into the envelope, and the envelope after the HTTP head, it became
 * a rope that V8 copies into one flat string at each step that needs one (measuring its bytes,
 * writing it to the socket): three copies of every large answer in the heap, each a large object
 * that only a full collection frees. Written piece by piece, the result goes out as it is.
 *
 * A handler may also answer many small pieces (one per log): the transports join them into parts
 * of about {@link PART_CHARS} characters as they write, so no text as long as the whole answer is
 * ever built, and a part is garbage as soon as the socket has taken it.
 */
export type Reply = string | readonly string[];

/** Results at least this long (in characters) are answered as pieces; shorter ones as one string. */
export const PIECES_FROM_CHARS = 64 * 1024;

/**
 * About how many characters of a reply in pieces go to the socket in one write: young-generation
 * strings (V8 puts strings of 128 KiB and more straight into its large-object space, which only a
 * full collection frees), and few enough writes that each costs little.
 */
export const PART_CHARS = 64 * 1024;

/** Characters of `reply`. */
export function replyLength(reply: Reply): number {
  if (typeof reply === 'string') return reply.length;
  let length = 0;
  for (const piece of reply) length += piece.length;
  return length;
}

/** Bytes of `reply` in UTF-8. */
export function replyBytes(reply: Reply): number {
  if (typeof reply === 'string') return Buffer.byteLength(reply);
  let bytes = 0;
  for (const piece of reply) bytes += Buffer.byteLength(piece);
  return bytes;
}

/** `reply` as one string. */
export function replyString(reply: Reply): string {
  return typeof reply === 'string' ? reply : reply.join('');
}

/** The answer `{"jsonrpc":"2.0","id":…,"result":<result>}`, `result` being JSON text. */
export function resultReply(idJson: string, result: Reply): Reply {
  const head = `{"jsonrpc":"2.0","id":${idJson},"result":`;
  if (replyLength(result) < PIECES_FROM_CHARS) return `${head}${replyString(result)}}`;
  return typeof result === 'string' ? [head, result, '}'] : [head, ...result, '}'];
}

/**
 * `pieces` in order, joined into parts of at least {@link PART_CHARS} characters where they are
 * shorter (the last part may be shorter); a piece that long on its own is a part by itself.
 */
export function* replyParts(pieces: readonly string[]): Generator<string, void, undefined> {
  let group: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    if (piece.length >= PART_CHARS) {
      if (group.length > 0) yield group.join('');
      group = [];
      chars = 0;
      yield piece;
      continue;
    }
    group.push(piece);
    chars += piece.length;
    if (chars >= PART_CHARS) {
      yield group.join('');
      group = [];
      chars = 0;
    }
  }
  if (group.length > 0) yield group.join('');
}

/** The answer to a batch: its answers in a JSON array; pieces when any of them is. */
export function batchReply(answers: readonly Reply[]): Reply {
  if (answers.every((answer) => typeof answer === 'string')) return `[${answers.join(',')}]`;
  const pieces: string[] = ['['];
  answers.forEach((answer, index) => {
    if (index > 0) pieces.push(',');
    if (typeof answer === 'string') pieces.push(answer);
    // One at a time: spread into the call's arguments, tens of thousands of pieces overflow the stack.
    else for (const piece of answer) pieces.push(piece);
  });
  pieces.push(']');
  return pieces;
}
