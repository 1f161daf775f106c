/**
 * Loads the daemon: `scripts/bundle-daemon.js` turns `run-daemon.ts` and everything it imports
 * into one CommonJS file, `dist/daemon/run-daemon.cjs`, written as one function expression, and
 * `scripts/daemon-code-cache.js` makes V8 code caches of it by starting a node and answering a
 * request. With the cache a start deserializes the functions it runs instead of parsing 4.5 MB of
 * JavaScript and compiling them one by one: about 40 % of the time to the first answer on a
 * fresh data directory (`docs/benchmarks.md`).
 *
 * V8 takes a cache only in a process with the V8 flags it was made in, so there is one per way
 * the node is started, named by a hash of the process's `execArgv` and `NODE_OPTIONS`: the
 * background daemon (`shared/daemon-runtime.ts`'s flags) and a process without flags
 * (`daemon start --foreground`, `node dist/daemon/main.js`). Any other start compiles as a
 * build without the cache would; the `starting` log line tells which (`codeCache`).
 *
 * The bundle finds its files (package.json, the WebAssembly, the thread entries) from
 * `__bundleUrl`, which stands for `import.meta.url` in it; it is in `dist/daemon/`, where the
 * thread entries' bundles are too.
 *
 * The call threads' and the trace threads' bundles (`call-threads/call-thread.cjs`,
 * `trace/trace-thread.cjs`) are written and loaded the same way (`loadBundle`, through
 * `thread-bundle.ts`), with code caches of their own beside them, named by the same key: a worker
 * runs with its process's flags.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname } from 'node:path';
import type { Script } from 'node:vm';
import { compileBundle, type CodeCacheUse } from '../shared/bundle-script.js';
import type { runDaemon } from './run-daemon.js';

export const DAEMON_BUNDLE_FILE = fileURLToPath(new URL('./run-daemon.cjs', import.meta.url));
/** The call threads' bundle, which their entry (`call-threads/call-thread-entry.ts`) loads. */
export const CALL_THREAD_BUNDLE_FILE = fileURLToPath(
  new URL('./call-threads/call-thread.cjs', import.meta.url),
);
/** The trace threads' bundle, which their entry (`trace/trace-thread-entry.ts`) loads. */
export const TRACE_THREAD_BUNDLE_FILE = fileURLToPath(
  new URL('./trace/trace-thread.cjs', import.meta.url),
);
/**
 * Set in the environment of the process that makes the code caches (scripts/daemon-code-cache.js):
 * a call or trace thread then writes its bundle's cache once it has answered its first jobs.
 */
export const MAKE_THREAD_CODE_CACHES_ENV = 'NODE_CLI_MAKE_THREAD_CODE_CACHES';

/** The function expression the bundle file is (the build writes it so); see the module notes. */
export const DAEMON_BUNDLE_WRAPPER = {
  head: '(function (exports, require, module, __filename, __dirname, __bundleUrl) {',
  tail: '\n})',
};

/** What the bundle exports. */
export interface DaemonBundleExports {
  runDaemon: typeof runDaemon;
}

export interface LoadedBundle<Exports> {
  exports: Exports;
  /** The compiled bundle and its id; `codeCacheBytes` of them makes a code cache. */
  script: Script;
  bundleId: string | undefined;
  codeCache: CodeCacheUse;
}

export type LoadedDaemonBundle = LoadedBundle<DaemonBundleExports>;

/**
 * The code cache file of the bundle `bundleFile` (`<name>.cjs`) for a process started with
 * `execArgv` and `nodeOptions` (the environment's `NODE_OPTIONS`): V8 checks its flags against
 * the cache's, and the flags come from these two. Worker threads run with their process's flags.
 */
export function codeCacheFileOf(
  bundleFile: string,
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string {
  const flags = [...execArgv, ...(nodeOptions ?? '').split(/\s+/).filter(Boolean)].join(' ');
  const key = createHash('sha256').update(flags).digest('hex').slice(0, 12);
  return `${bundleFile.replace(/\.cjs$/, '')}.${key}.v8cache`;
}

/** The daemon bundle's code cache file for a process started with `execArgv` and `nodeOptions`. */
export function daemonCodeCacheFile(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string {
  return codeCacheFileOf(DAEMON_BUNDLE_FILE, execArgv, nodeOptions);
}

/**
 * Compiles and runs the bundle in `file` (written as the function expression of
 * {@link DAEMON_BUNDLE_WRAPPER}), with this process's code cache unless `withoutCodeCache`.
 */
export function loadBundle<Exports>(
  file: string,
  { withoutCodeCache = false } = {},
): LoadedBundle<Exports> {
  const { script, codeCache, bundleId } = compileBundle(
    file,
    withoutCodeCache ? undefined : codeCacheFileOf(file),
  );
  const module = { exports: {} as Exports };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    pathToFileURL(file).href,
  );
  return { exports: module.exports, script, bundleId, codeCache };
}

/** Compiles and runs the daemon's bundle, with this process's code cache unless told not to. */
export function loadDaemonBundle({ withoutCodeCache = false } = {}): LoadedDaemonBundle {
  return loadBundle<DaemonBundleExports>(DAEMON_BUNDLE_FILE, { withoutCodeCache });
}
