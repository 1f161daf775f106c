/**
 * The built daemon is one bundle (scripts/bundle-daemon.js): these tests read `dist/`, which
 * `npm test` builds first. They fail if the bundle starts importing module files again, or if it
 * carries its own copy of the error classes the CLI decides on with `instanceof`.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST_DAEMON = fileURLToPath(new URL('../../dist/daemon/', import.meta.url));
const BUNDLE = join(DIST_DAEMON, 'run-daemon.js');
const SHARED_ERRORS = fileURLToPath(new URL('../../dist/shared/errors.js', import.meta.url));
/** How the bundle in dist/daemon/ names the error classes it leaves outside. */
const ERRORS_SPECIFIER = '../shared/errors.js';

/** Module specifiers of the bundle's static `import … from "…"` and `export … from "…"`. */
function staticImports(source: string): Set<string> {
  const specifiers = new Set<string>();
  for (const match of source.matchAll(/^(?:import|export)\b[^;]*?from\s*"([^"]+)";/gm))
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
  it('imports only built-in modules, lmdb and the shared error classes', () => {
    const imports = staticImports(readFileSync(BUNDLE, 'utf8'));
    const others = [...imports].filter(
      (specifier) =>
        !specifier.startsWith('node:') && specifier !== 'lmdb' && specifier !== ERRORS_SPECIFIER,
    );
    expect(others).toEqual([]);
    expect(imports.has(ERRORS_SPECIFIER)).toBe(true);
    expect(existsSync(join(DIST_DAEMON, 'wasm-crypto.wasm'))).toBe(true);
  });

  it("leaves ws's native frame unmasking to load from node_modules", () => {
    expect(readFileSync(BUNDLE, 'utf8')).toContain('__require("bufferutil")');
    const bufferutil = createRequire(BUNDLE)('bufferutil') as { unmask: unknown };
    expect(typeof bufferutil.unmask).toBe('function');
  });

  it('fails a start with the error classes the CLI process has loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-bundle-'));
    const notADirectory = join(dir, 'file');
    writeFileSync(notADirectory, '');
    try {
      const output = await runModule(`
        import { runDaemon } from ${JSON.stringify(BUNDLE)};
        import { NodeError, ServerError } from ${JSON.stringify(SHARED_ERRORS)};
        try {
          await runDaemon({ dataDir: ${JSON.stringify(notADirectory)}, flags: {}, env: {} });
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

  it('refuses to start the entry without a data directory or with a stray argument', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'node-cli-entry-'));
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [join(DIST_DAEMON, 'main.js'), ...args],
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
  });
});
