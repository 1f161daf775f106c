/**
 * The daemon's log: one JSON object a line (`time`, `level`, `msg`, then the event's fields),
 * written by pino to the background daemon's rotated log file or, under `--foreground`, to
 * stdout (rendered for people unless `--log.format json`). The level changes at run time
 * (`debug_verbosity`, `node-cli daemon log-level`).
 *
 * Secrets never reach it by design: callers log addresses, never passphrases, keys or tokens,
 * and fields with a secret's name are redacted anyway.
 */
import { pino, stdTimeFunctions, type Logger as PinoLogger } from 'pino';
import { renderLogLine } from '../shared/log-line.js';
import { fileDescriptorWriter } from './log/process-output.js';
import type { LogLevel } from '../shared/log-levels.js';

export interface Logger {
  error(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  debug(message: string, details?: Record<string, unknown>): void;
}

/** The logger the composition root holds: the callers' {@link Logger} plus its level. */
export interface DaemonLogger extends Logger {
  trace(message: string, details?: Record<string, unknown>): void;
  level(): LogLevel;
  setLevel(level: LogLevel): void;
}

/** Where lines go: each call gets one whole line, newline included. */
export type LineWriter = (line: string) => void;

/** Field names that would hold a secret: their values are replaced, at the top and one level down. */
const SECRET_FIELDS = [
  'passphrase',
  'password',
  'newPassphrase',
  'token',
  'authorization',
  'privateKey',
  'secret',
  'mnemonic',
];
const REDACTED_PATHS = SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]);

/** Keys of every record: a field of the same name is renamed so as not to repeat the key. */
const RECORD_KEYS = new Set(['level', 'time', 'msg']);

/**
 * BigInts as decimal strings (JSON has no integer type wide enough for them), and fields that
 * would repeat a record key renamed with a trailing `_`.
 */
function plainValues(fields: Record<string, unknown>): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    plain[RECORD_KEYS.has(key) ? `${key}_` : key] =
      typeof value === 'bigint' ? value.toString() : value;
  }
  return plain;
}

/**
 * Writes to stdout. When stdout is a file, a failed write (disk full) loses that line only:
 * Node's file stream would throw or emit an unhandled 'error' and end the process, and then
 * stay closed after space returns.
 */
export function stdoutWriter(): LineWriter {
  const toFile = fileDescriptorWriter(1);
  return toFile ?? ((line) => void process.stdout.write(line));
}

/** Renders each JSON line for a terminal before `write` gets it. */
export function humanReadable(write: LineWriter): LineWriter {
  return (line) => write(`${renderLogLine(line.trimEnd())}\n`);
}

export function createLogger(level: LogLevel, write: LineWriter = stdoutWriter()): DaemonLogger {
  const log: PinoLogger = pino(
    {
      level,
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: plainValues },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    { write },
  );
  const at =
    (method: 'error' | 'warn' | 'info' | 'debug' | 'trace') =>
    (message: string, details?: Record<string, unknown>) => {
      if (details === undefined) log[method](message);
      else log[method](details, message);
    };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    level: () => log.level as LogLevel,
    setLevel: (next) => {
      log.level = next;
    },
  };
}
