/**
 * The daemon's log records: what the logger writes (JSON lines, levels that change at run
 * time, secrets redacted, bigints as strings), how `daemon logs` renders them for people, the
 * level names and geth verbosity numbers, and the size rotation of the log file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { RotatingLogFile } from '../../src/daemon/log/rotating-log-file.js';
import { WarningThrottle } from '../../src/daemon/log/warning-throttle.js';
import { createLogger } from '../../src/daemon/logger.js';
import { parseLogRecord, renderLogLine } from '../../src/shared/log-line.js';
import { isAtLeast, parseLogLevelName } from '../../src/shared/log-levels.js';

function recording() {
  const lines: string[] = [];
  return { lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('daemon logger', () => {
  it('writes one JSON object a line with time, level, message and the fields', () => {
    const out = recording();
    const logger = createLogger('info', (line) => out.lines.push(line));
    logger.info('block committed', { height: 7, gasUsed: 21000n, hash: '0xab' });
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0].endsWith('\n')).toBe(true);
    const [record] = out.records();
    expect(record).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      msg: 'block committed',
      height: 7,
      gasUsed: '21000',
      hash: '0xab',
    });
  });

  it('filters by a level that changes at run time', () => {
    const out = recording();
    const logger = createLogger('warn', (line) => out.lines.push(line));
    logger.info('hidden');
    logger.setLevel('debug');
    logger.debug('shown');
    logger.trace('still hidden');
    logger.setLevel('silent');
    logger.error('silenced');
    expect(logger.level()).toBe('silent');
    expect(out.records().map((record) => record.msg)).toEqual(['shown']);
  });

  it('redacts fields named like secrets, at the top and one level down', () => {
    const out = recording();
    const logger = createLogger('info', (line) => out.lines.push(line));
    logger.info('careless caller', {
      passphrase: 'hunter2',
      token: 'abc123',
      request: { password: 'pw', privateKey: '0x11' },
      address: '0xf39f',
    });
    expect(out.lines[0]).not.toMatch(/hunter2|abc123|"pw"|0x11/);
    expect(out.records()[0]).toMatchObject({
      passphrase: '[redacted]',
      token: '[redacted]',
      request: { password: '[redacted]', privateKey: '[redacted]' },
      address: '0xf39f',
    });
  });

  it('keeps the record keys when a field has the same name', () => {
    const out = recording();
    createLogger('info', (line) => out.lines.push(line)).warn('log level changed', {
      level: 'debug',
    });
    expect(out.records()[0]).toMatchObject({ level: 'warn', level_: 'debug' });
  });
});

describe('rendering for people', () => {
  it('prints time, level, message and each value encoded once', () => {
    const line = JSON.stringify({
      level: 'info',
      time: '2026-11-26T08:00:00.000Z',
      msg: 'chain opened',
      chainId: '9000',
      genesis: 'embedded dev chain',
      head: 0,
      ok: true,
      empty: '',
      quoted: 'say "hi"',
      settings: { 'block-time': '1s (flag)' },
    });
    expect(renderLogLine(line)).toBe(
      '2026-11-26T08:00:00.000Z INFO chain opened chainId=9000 genesis="embedded dev chain" ' +
        'head=0 ok=true empty="" quoted="say \\"hi\\"" settings={"block-time":"1s (flag)"}',
    );
  });

  it('passes lines that are not records through unchanged', () => {
    expect(renderLogLine('    at main (file.js:1:1)')).toBe('    at main (file.js:1:1)');
    expect(renderLogLine('{not json')).toBe('{not json');
    expect(parseLogRecord('[1,2]')).toBeUndefined();
  });
});

describe('log levels', () => {
  it('takes names in any case and geth verbosity numbers', () => {
    expect(parseLogLevelName('DEBUG')).toBe('debug');
    expect(['0', '1', '2', '3', '4', '5'].map(parseLogLevelName)).toEqual([
      'silent',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
    ]);
    expect(parseLogLevelName('6')).toBeUndefined();
    expect(parseLogLevelName('verbose')).toBeUndefined();
  });

  it('orders levels by severity for filtering', () => {
    expect(isAtLeast('error', 'warn')).toBe(true);
    expect(isAtLeast('warn', 'warn')).toBe(true);
    expect(isAtLeast('info', 'warn')).toBe(false);
    expect(isAtLeast('undefined', 'trace')).toBe(false);
  });
});

describe('warning throttle', () => {
  it('logs the first of a kind, then one per interval with the count left out', () => {
    const warned: Array<[string, Record<string, unknown> | undefined]> = [];
    let now = 0;
    const throttle = new WarningThrottle(
      (message, details) => warned.push([message, details]),
      1000,
      () => now,
    );
    for (let i = 0; i < 5; i++) throttle.report('a', 'refused', { method: 'x' });
    throttle.report('b', 'other', {});
    now = 1000;
    throttle.report('a', 'refused', { method: 'x' });
    expect(warned).toEqual([
      ['refused', { method: 'x' }],
      ['other', {}],
      ['refused', { method: 'x', notLoggedSinceLast: 4 }],
    ]);
  });
});

describe('rotating log file', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps at most maxFiles files of at most maxSize bytes, newest lines in daemon.log', () => {
    dir = mkdtempSync(join(tmpdir(), 'node-cli-rotation-'));
    const path = join(dir, 'daemon.log');
    const file = new RotatingLogFile(path, { maxSize: 1000, maxFiles: 3 });
    for (let i = 0; i < 200; i++)
      file.write(`line ${String(i).padStart(4, '0')} ${'x'.repeat(40)}\n`);
    file.close();
    expect(readdirSync(dir).sort()).toEqual(['daemon.log', 'daemon.log.1', 'daemon.log.2']);
    for (const name of readdirSync(dir))
      expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(1000);
    const kept = ['daemon.log.2', 'daemon.log.1', 'daemon.log'].flatMap((name) =>
      readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean),
    );
    // Whole lines, in order, ending with the last one written.
    const numbers = kept.map((line) => Number(line.split(' ')[1]));
    expect(numbers.at(-1)).toBe(199);
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i));
  });

  it('starts the one file over when only one is kept', () => {
    dir = mkdtempSync(join(tmpdir(), 'node-cli-rotation-'));
    const path = join(dir, 'daemon.log');
    const file = new RotatingLogFile(path, { maxSize: 100, maxFiles: 1 });
    for (let i = 0; i < 10; i++) file.write(`${'y'.repeat(30)} ${i}\n`);
    file.close();
    expect(readdirSync(dir)).toEqual(['daemon.log']);
    expect(readFileSync(path, 'utf8')).toMatch(/ 9\n$/);
  });

  it('loses a line it cannot write, never the process (disk full)', () => {
    dir = mkdtempSync(join(tmpdir(), 'node-cli-rotation-'));
    const file = new RotatingLogFile('/dev/full', { maxSize: 1 << 20, maxFiles: 2 });
    expect(() => file.write('no space for this\n')).not.toThrow();
    file.close();
  });
});
