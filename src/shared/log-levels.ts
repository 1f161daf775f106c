/**
 * The daemon's log levels, shared by the daemon (which filters by them) and the CLI (which
 * sets them with `daemon log-level` and filters `daemon logs --level`).
 */

/** From quietest to noisiest; `silent` writes nothing. */
export const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug', 'trace'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * geth's `--verbosity` / `debug_verbosity` numbers: 0 silent, 1 error, 2 warn, 3 info, 4 debug,
 * 5 trace (geth calls it "detail"). The index into {@link LOG_LEVELS}.
 */
export function levelOfVerbosity(verbosity: number): LogLevel | undefined {
  return Number.isInteger(verbosity) ? LOG_LEVELS[verbosity] : undefined;
}

/** A level name (any case) or a geth verbosity number, as typed by a user; undefined if neither. */
export function parseLogLevelName(raw: string): LogLevel | undefined {
  const text = raw.trim().toLowerCase();
  if (/^\d$/.test(text)) return levelOfVerbosity(Number(text));
  return (LOG_LEVELS as readonly string[]).includes(text) ? (text as LogLevel) : undefined;
}

/** What a user may type for a level, for error messages and help. */
export const LOG_LEVEL_CHOICES = `${LOG_LEVELS.join(', ')} or a geth verbosity 0-5`;

/** Whether a line at `lineLevel` is shown when `threshold` is the least severe level wanted. */
export function isAtLeast(lineLevel: string, threshold: LogLevel): boolean {
  const line = LOG_LEVELS.indexOf(lineLevel as LogLevel);
  return line > 0 && line <= LOG_LEVELS.indexOf(threshold);
}
