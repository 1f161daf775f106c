/**
 * What a call thread runs: its bundle (`call-thread.cjs`, everything `call-thread.ts` imports),
 * compiled with V8's code cache as the daemon's own bundle is (`daemon-bundle.ts`). A thread
 * starts on demand, on the first call or sender recovery after an idle spell, and every job that
 * arrives meanwhile waits for it; compiling its megabyte of JavaScript was most of that wait
 * (docs/benchmarks.md). The build writes this entry as CommonJS too (`call-thread-entry.cjs`),
 * so the thread does not start Node's ES module loader either.
 */
import { writeFileSync } from 'node:fs';
import { codeCacheBytes } from '../../shared/bundle-script.js';
import {
  CALL_THREAD_BUNDLE_FILE,
  MAKE_CALL_THREAD_CACHE_ENV,
  codeCacheFileOf,
  loadBundle,
} from '../daemon-bundle.js';
import type { serveCalls } from './call-thread.js';

const bundle = loadBundle<{ serveCalls: typeof serveCalls }>(CALL_THREAD_BUNDLE_FILE);

/**
 * Writes the bundle's code cache (the build's step, `MAKE_CALL_THREAD_CACHE_ENV`). A failure is
 * the build's to notice, by the missing file; the thread goes on serving.
 */
function writeCodeCache(): void {
  try {
    writeFileSync(codeCacheFileOf(CALL_THREAD_BUNDLE_FILE), codeCacheBytes(bundle));
  } catch {
    return;
  }
}

// A failure to open the chain is unhandled on purpose: it ends the thread with the error, which
// the pool logs and answers by starting it again later.
void bundle.exports.serveCalls({
  codeCache: bundle.codeCache,
  afterFirstBatch:
    process.env[MAKE_CALL_THREAD_CACHE_ENV] === undefined ? undefined : writeCodeCache,
});
