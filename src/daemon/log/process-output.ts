/**
 * What the background daemon prints outside its logger: libraries' `console.*` calls (lmdb
 * reports a failed write with `console.error`) and anything written to stdout or stderr, which
 * `daemon start` points at `<datadir>/logs/daemon.stderr`. On a full disk such a write throws
 * out of the library that made it and ends the process; here console output becomes log lines
 * (written by the log's own writer, which loses a line rather than the process) and a failed
 * write to stdout or stderr loses its text.
 */
import { fstatSync, writeSync } from 'node:fs';
import { format } from 'node:util';
import type { Logger } from '../logger.js';

/** A writer to `fd` whose failures lose the text; undefined when `fd` is not a regular file. */
export function fileDescriptorWriter(
  fd: number,
): ((text: string | Uint8Array) => void) | undefined {
  try {
    if (!fstatSync(fd).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return (text) => {
    try {
      writeSync(fd, typeof text === 'string' ? Buffer.from(text) : text);
    } catch {
      // Nowhere to report it; the next write is tried again.
    }
  };
}

/** Sends `console.*` to `logger` and makes writes to stdout and stderr files unable to throw. */
export function containProcessOutput(logger: Logger): void {
  const at =
    (level: keyof Logger) =>
    (...args: unknown[]) =>
      logger[level]('console output', { text: format(...args) });
  Object.assign(console, {
    error: at('error'),
    warn: at('warn'),
    log: at('info'),
    info: at('info'),
    debug: at('debug'),
  });
  for (const [stream, fd] of [
    [process.stdout, 1],
    [process.stderr, 2],
  ] as const) {
    const write = fileDescriptorWriter(fd);
    if (write === undefined) continue;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      write(chunk);
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof stream.write;
  }
}
