/**
 * A trace's result as JSON text in pieces, written on the trace thread. A struct log of a long
 * run is tens of megabytes of JSON; cloned to the main thread as objects and written there as
 * one string, it held every other request for seconds. As pieces of about the size the
 * transports write at once (`rpc/reply.ts`), it crosses as strings, and the main thread only
 * writes them out.
 */
import { PART_CHARS } from '../rpc/reply.js';

/** Arrays longer than this are written element by element (a stack holds at most 1024). */
const LONG_ARRAY = 1024;

/** Whether `value` is, or holds, an array long enough to be written in pieces. */
function holdsLongArray(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > LONG_ARRAY || value.some(holdsLongArray);
  return typeof value === 'object' && value !== null && Object.values(value).some(holdsLongArray);
}

class PieceWriter {
  readonly pieces: string[] = [];
  private current = '';

  add(text: string): void {
    this.current += text;
    if (this.current.length < PART_CHARS) return;
    this.pieces.push(this.current);
    this.current = '';
  }

  finish(): string[] {
    if (this.current !== '') this.pieces.push(this.current);
    this.current = '';
    return this.pieces;
  }
}

function write(value: unknown, out: PieceWriter): void {
  if (!holdsLongArray(value)) {
    out.add(JSON.stringify(value) ?? 'null');
  } else if (Array.isArray(value)) {
    out.add('[');
    value.forEach((item, index) => {
      if (index > 0) out.add(',');
      write(item, out);
    });
    out.add(']');
  } else {
    out.add('{');
    let first = true;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      // As JSON.stringify leaves them out.
      if (item === undefined || typeof item === 'function') continue;
      out.add(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      write(item, out);
    }
    out.add('}');
  }
}

/** `value` as JSON (what `JSON.stringify` gives), in pieces of about `PART_CHARS` characters. */
export function jsonPieces(value: unknown): string[] {
  const out = new PieceWriter();
  write(value, out);
  return out.finish();
}
