/**
 * The daemon's log records (one JSON object a line: `time`, `level`, `msg`, then the event's
 * fields) rendered for people: `<time> <LEVEL> <message> key=value ...`, each value encoded
 * once. Used by `daemon logs` and by the daemon's own output under `--foreground`.
 */

/** One parsed log line. */
export interface LogRecord {
  time?: string;
  level?: string;
  msg?: string;
  [field: string]: unknown;
}

/** The record of a JSON log line; undefined for anything else (a crash trace, an old plain line). */
export function parseLogRecord(line: string): LogRecord | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as LogRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A bare word when it reads unambiguously, a JSON string when it holds spaces, quotes or `=`. */
function renderValue(value: unknown): string {
  if (typeof value === 'string') {
    return value !== '' && !/[\s"=\\]/.test(value) ? value : JSON.stringify(value);
  }
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** One record as a line for a terminal (no newline). */
export function renderLogRecord(record: LogRecord): string {
  const { time, level, msg, ...fields } = record;
  const head = [time ?? '-', (level ?? '-').toUpperCase(), msg ?? ''].join(' ');
  const tail = Object.entries(fields)
    .map(([key, value]) => ` ${key}=${renderValue(value)}`)
    .join('');
  return `${head}${tail}`;
}

/** A log line for a terminal: records rendered, anything else as it is. */
export function renderLogLine(line: string): string {
  const record = parseLogRecord(line);
  return record === undefined ? line : renderLogRecord(record);
}
