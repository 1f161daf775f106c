/**
 * The daemon's log: one line per event, `<ISO time> <LEVEL> <message> key=value ...`, on
 * stdout (the log file when the daemon runs in the background).
 */
import { fstatSync, writeSync } from 'node:fs';
import type { LogLevel } from './config/options.js';

export interface Logger {
  error(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  debug(message: string, details?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

function formatValue(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  return /[\s"=]/.test(text ?? '') ? JSON.stringify(text) : String(text);
}

/**
 * Writes to stdout. When stdout is a file (the background daemon's log), a failed write (disk
 * full) loses that line only: Node's file stream would emit an unhandled 'error' and end the
 * process, and then stay closed after space returns.
 */
function stdoutWriter(): (line: string) => void {
  let isFile = false;
  try {
    isFile = fstatSync(1).isFile();
  } catch {
    // No usable stdout: the stream's own behaviour applies.
  }
  if (!isFile) return (line) => void process.stdout.write(line);
  return (line) => {
    try {
      writeSync(1, line);
    } catch {
      // Nowhere to report it; the next line is tried again.
    }
  };
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = stdoutWriter(),
): Logger {
  const emit = (at: LogLevel) => (message: string, details?: Record<string, unknown>) => {
    if (RANK[at] > RANK[level]) return;
    const fields = details
      ? Object.entries(details)
          .map(([key, value]) => ` ${key}=${formatValue(value)}`)
          .join('')
      : '';
    write(`${new Date().toISOString()} ${at.toUpperCase()} ${message}${fields}\n`);
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}
