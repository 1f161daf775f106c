/**
 * The log of a test daemon: every file of `<datadir>/logs` (the rotated `daemon.log.N`, oldest
 * first, then `daemon.log`), as parsed records or rendered the way `daemon logs` prints them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLogRecord, renderLogLine, type LogRecord } from '../../src/shared/log-line.js';

/** Paths of the log files, oldest first. */
export function daemonLogFiles(dataDir: string): string[] {
  const dir = join(dataDir, 'logs');
  const rotation = (name: string) => Number(/^daemon\.log(?:\.(\d+))?$/.exec(name)?.[1] ?? 0);
  return readdirSync(dir)
    .filter((name) => /^daemon\.log(\.\d+)?$/.test(name))
    .sort((a, b) => rotation(b) - rotation(a))
    .map((name) => join(dir, name));
}

function lines(dataDir: string): string[] {
  return daemonLogFiles(dataDir).flatMap((file) =>
    readFileSync(file, 'utf8').split('\n').filter(Boolean),
  );
}

export function daemonLogRecords(dataDir: string): LogRecord[] {
  return lines(dataDir).map((line) => parseLogRecord(line) ?? { msg: line });
}

/** `<time> <LEVEL> <message> key=value ...` lines, as `daemon logs` shows them. */
export function daemonLogText(dataDir: string): string {
  return lines(dataDir).map(renderLogLine).join('\n');
}
