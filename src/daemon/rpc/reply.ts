/**
 * The text of a JSON-RPC answer as the transports send it: one string, or, for a large result,
 * its pieces in order.
 *
 * Why pieces: a large result is already one string when its handler is done (an `eth_getLogs` of
 * 10 000 logs is 5.7 MB). Put into the envelope, and the envelope after the HTTP head, it became
 * a rope that V8 copies into one flat string at each step that needs one (measuring its bytes,
 * writing it to the socket): three copies of every large answer in the heap, each a large object
 * that only a full collection frees. Written piece by piece, the result goes out as it is.
 */
export type Reply = string | readonly string[];

/** Results at least this long (in characters) are answered as pieces; shorter ones as one string. */
export const PIECES_FROM_CHARS = 64 * 1024;

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

/** The answer to a batch: its answers in a JSON array; pieces when any of them is. */
export function batchReply(answers: readonly Reply[]): Reply {
  if (answers.every((answer) => typeof answer === 'string')) return `[${answers.join(',')}]`;
  const pieces: string[] = ['['];
  answers.forEach((answer, index) => {
    if (index > 0) pieces.push(',');
    if (typeof answer === 'string') pieces.push(answer);
    else pieces.push(...answer);
  });
  pieces.push(']');
  return pieces;
}
