/**
 * What a trace thread runs: its bundle, `trace-thread.cjs` (everything `trace-thread.ts`
 * imports), compiled with its code cache and started (`thread-bundle.ts`).
 */
import { TRACE_THREAD_BUNDLE_FILE } from '../daemon-bundle.js';
import { serveBundle } from '../thread-bundle.js';
import type { serveTraces } from './trace-thread.js';

serveBundle<{ serveTraces: typeof serveTraces }>(
  TRACE_THREAD_BUNDLE_FILE,
  (exports) => exports.serveTraces,
);
