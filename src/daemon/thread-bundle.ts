/**
 * What the entry of a worker thread whose code the build bundles (`call-threads/call-thread.cjs`,
 * `trace/trace-thread.cjs`) does: compiles the bundle with V8's code cache, as the daemon's own
 * bundle is (`daemon-bundle.ts`), and starts it. Threads start on demand, and whatever arrives
 * meanwhile waits for them; compiling a megabyte of JavaScript was most of that wait
 * (docs/benchmarks.md). The build writes each entry as CommonJS too (`<name>-entry.cjs`), so a
 * thread does not start Node's ES module loader either.
 */
import { writeFileSync } from 'node:fs';
import { codeCacheBytes, type CodeCacheUse } from '../shared/bundle-script.js';
import {
  MAKE_THREAD_CODE_CACHES_ENV,
  codeCacheFileOf,
  loadBundle,
  type LoadedBundle,
} from './daemon-bundle.js';

/** What a thread bundle's serving function is given. */
export interface ThreadServeOptions {
  /** Whether the thread's code came from V8's code cache, told to the main thread. */
  codeCache: CodeCacheUse;
  /** Called once, after the first batch of jobs has been answered. */
  afterFirstBatch?: () => void;
}

type ServeThread = (options: ThreadServeOptions) => Promise<void>;

/**
 * Writes the code cache of the bundle in `file` (the build's step, `MAKE_THREAD_CODE_CACHES_ENV`).
 * A failure is the build's to notice, by the missing file; the thread goes on serving.
 */
function writeCodeCache(file: string, bundle: LoadedBundle<unknown>): void {
  try {
    writeFileSync(codeCacheFileOf(file), codeCacheBytes(bundle));
  } catch {
    return;
  }
}

/**
 * Loads the bundle in `file` and serves with what `serveOf` picks from its exports. A failure to
 * start serving (the chain does not open) is left unhandled on purpose: it ends the thread with
 * the error, which the main thread's side of it sees and reports.
 */
export function serveBundle<Exports>(
  file: string,
  serveOf: (exports: Exports) => ServeThread,
): void {
  const bundle = loadBundle<Exports>(file);
  void serveOf(bundle.exports)({
    codeCache: bundle.codeCache,
    afterFirstBatch:
      process.env[MAKE_THREAD_CODE_CACHES_ENV] === undefined
        ? undefined
        : () => writeCodeCache(file, bundle),
  });
}
