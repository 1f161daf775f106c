/**
 * The daemon's log: one line per event, `<ISO time> <LEVEL> <message> key=value ...`, on
 * stdout (the log file when the daemon runs in the background).
 */
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

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line),
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
