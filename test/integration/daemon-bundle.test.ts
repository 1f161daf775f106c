/**
 * The built daemon is one bundle (scripts/bundle-daemon.js) with V8 code caches
 * (scripts/daemon-code-cache.js): these tests read `dist/`, which `npm test` builds first. They
 * fail if the bundle starts requiring module files again, if it carries its own copy of the error
 * classes the CLI decides on with `instanceof`, or if a start no longer takes its code cache.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { builtinModules, createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, startStreaming } from '../helpers/cli.js';
import { daemonLogRecords } from '../helpers/daemon-log.js';
import { waitFor } from '../helpers/processes.js';
import { LOOPBACK_FLAGS, makeDataDir } from '../helpers/test-daemon.js';

const DIST_DAEMON = fileURLToPath(new URL('../../dist/daemon/', import.meta.url));
const BUNDLE = join(DIST_DAEMON, 'run-daemon.cjs');
const BUNDLE_LOADER = join(DIST_DAEMON, 'daemon-bundle.js');
const SHARED_ERRORS = fileURLToPath(new URL('../../dist/shared/errors.js', import.meta.url));
/** How the bundle in dist/daemon/ names the error classes it leaves outside. */
const ERRORS_SPECIFIER = '../shared/errors.cjs';

/** The test listeners as the entry takes them: `--option=value`. */
function entryLoopbackFlags(): string[] {
  return LOOPBACK_FLAGS.flatMap((flag, index) =>
    index % 2 === 0 ? [`${flag}=${LOOPBACK_FLAGS[index + 1]}`] : [],
  );
}

/** Module specifiers of the bundle's `require("…")` calls (not those inside generated code). */
function requiredModules(source: string): Set<string> {
  const specifiers = new Set<string>();
  for (const match of source.matchAll(/(?<![\w$.'"`])require\("([^"]+)"\)/g))
    specifiers.add(match[1]);
  return specifiers;
}

/**
 * Runs an ES module snippet with Node in a child process; resolves with the last line of its
 * stdout (the daemon's log lines come first there, as in `daemon start --foreground`).
 */
function runModule(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '--eval', code],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(stderr || error.message))
          : resolve(stdout.trim().split('\n').at(-1) ?? ''),
    );
  });
}

describe('daemon bundle', () => {
  it("requires only built-in modules, lmdb, ws's optional addons and the shared errors", () => {
    const required = requiredModules(readFileSync(BUNDLE, 'latin1'));
    const others = [...required].filter(
      (specifier) =>
        !builtinModules.includes(specifier.replace(/^node:/, '')) &&
        !['lmdb', 'bufferutil', 'utf-8-validate', ERRORS_SPECIFIER].includes(specifier),
    );
    expect(others).toEqual([]);
    expect(required.has(ERRORS_SPECIFIER)).toBe(true);
    expect(existsSync(join(DIST_DAEMON, 'wasm-crypto.wasm'))).toBe(true);
  });

  it('is, with every other bundle its loader reads as Latin-1, pure ASCII', () => {
    const bundles = [
      BUNDLE,
      join(DIST_DAEMON, 'call-threads', 'call-thread.cjs'),
      join(DIST_DAEMON, 'trace', 'trace-thread.cjs'),
      fileURLToPath(new URL('../../dist/cli-bundle.cjs', import.meta.url)),
    ];
    for (const bundle of bundles) {
      const text = readFileSync(bundle, 'latin1');
      expect({ bundle, firstPastAscii: text.search(/[\u0080-\uffff]/) }).toEqual({
        bundle,
        firstPastAscii: -1,
      });
    }
  });

  it("leaves ws's native frame unmasking to load from node_modules", () => {
    expect(requiredModules(readFileSync(BUNDLE, 'latin1')).has('bufferutil')).toBe(true);
    const bufferutil = createRequire(BUNDLE)('bufferutil') as { unmask: unknown };
    expect(typeof bufferutil.unmask).toBe('function');
  });

  it('fails a start with the error classes the CLI process has loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-bundle-'));
    const notADirectory = join(dir, 'file');
    writeFileSync(notADirectory, '');
    try {
      const output = await runModule(`
        import { loadDaemonBundle } from ${JSON.stringify(BUNDLE_LOADER)};
        import { NodeError, ServerError } from ${JSON.stringify(SHARED_ERRORS)};
        try {
          await loadDaemonBundle().exports.runDaemon({ dataDir: ${JSON.stringify(notADirectory)}, flags: {}, env: {} });
          console.log(JSON.stringify({ started: true }));
        } catch (error) {
          console.log(JSON.stringify({
            nodeError: error instanceof NodeError,
            serverError: error instanceof ServerError,
            message: error.message,
          }));
        }
      `);
      // The daemon's log lines come first on stdout; the script's verdict is the last line.
      expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({
        nodeError: true,
        serverError: true,
        message: expect.stringContaining('is not writable'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // main.cjs is the build's CommonJS copy of main.js, the one `daemon start` runs.
  it.each(['main.js', 'main.cjs'])(
    'refuses to start the entry (%s) without a data directory or with a stray argument',
    async (entryFile) => {
      const cwd = mkdtempSync(join(tmpdir(), 'node-cli-entry-'));
      const run = (args: string[]) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = execFile(
            process.execPath,
            [join(DIST_DAEMON, entryFile), ...args],
            { cwd, timeout: 30_000 },
            (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }),
          );
        });
      try {
        const missing = await run(['--json-rpc.address=127.0.0.1:0']);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toContain('daemon failed to start: --datadir=<dir> is required');
        const stray = await run([`--datadir=${join(cwd, 'data')}`, '--block-time', '1s']);
        expect(stray.code).toBe(1);
        expect(stray.stderr).toContain("daemon failed to start: Unexpected argument '1s'");
        // Nothing was made: neither a directory named "undefined" nor the data directory.
        expect(existsSync(join(cwd, 'undefined'))).toBe(false);
        expect(existsSync(join(cwd, 'data'))).toBe(false);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  it('starts from its V8 code cache, in the background and in the foreground, and so do its call and trace threads', async () => {
    const dataDir = makeDataDir();
    // Under jest NODE_OPTIONS is set, and V8 takes a cache only with the flags it was made with.
    const asUsersStartIt = { NODE_OPTIONS: '' };
    const start = ['daemon', 'start', '--datadir', dataDir, ...LOOPBACK_FLAGS];
    try {
      expect((await runCli(start, asUsersStartIt)).code).toBe(0);
      // A call starts the call thread, which compiles its own bundle.
      const { endpoints } = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as {
        endpoints: { http: string };
      };
      const called = await fetch(endpoints.http, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [{ data: '0x60206000f3' }, 'latest'],
        }),
      });
      expect(((await called.json()) as { result: string }).result).toBe(`0x${'00'.repeat(32)}`);
      await waitFor(
        () => daemonLogRecords(dataDir).some((record) => record.msg === 'call thread ready'),
        30_000,
        'the call thread',
      );
      const threadReady = daemonLogRecords(dataDir).find(
        (record) => record.msg === 'call thread ready',
      );
      expect(threadReady?.codeCache).toBe('used');
      // A trace starts a trace thread, which compiles its own bundle too.
      const traced = await fetch(endpoints.http, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${readFileSync(join(dataDir, 'auth.token'), 'utf8').trim()}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'debug_traceCall',
          params: [{ data: '0x60206000f3' }, 'latest', { tracer: 'callTracer' }],
        }),
      });
      expect(((await traced.json()) as { result: { output: string } }).result.output).toBe(
        `0x${'00'.repeat(32)}`,
      );
      const traceReady = daemonLogRecords(dataDir).find(
        (record) => record.msg === 'trace thread ready',
      );
      expect(traceReady?.codeCache).toBe('used');
      expect((await runCli(['daemon', 'stop', '--datadir', dataDir])).code).toBe(0);
      const foreground = startStreaming(
        [...start, '--foreground', '--log.format', 'json'],
        asUsersStartIt,
      );
      await waitFor(
        () => foreground.lines.some((line) => line.includes('"msg":"node started"')),
        30_000,
        'the foreground node',
      );
      await foreground.interrupt();
      // The entry alone, on a data directory it makes: its log starts with the starting line.
      const entryDataDir = join(dataDir, 'entry');
      const entry = spawn(
        process.execPath,
        [join(DIST_DAEMON, 'main.js'), `--datadir=${entryDataDir}`, ...entryLoopbackFlags()],
        { env: { ...process.env, ...asUsersStartIt }, stdio: 'ignore' },
      );
      const entryExit = new Promise((resolve) => entry.once('exit', resolve));
      await waitFor(() => existsSync(join(entryDataDir, 'daemon.json')), 30_000, 'the entry');
      entry.kill('SIGTERM');
      await entryExit;
      const startingLines = [
        ...daemonLogRecords(dataDir),
        ...foreground.lines.map((line) => JSON.parse(line) as Record<string, unknown>),
        daemonLogRecords(entryDataDir)[0],
      ].filter((record) => record.msg === 'starting');
      expect(startingLines.map((record) => record.codeCache)).toEqual(['used', 'used', 'used']);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
