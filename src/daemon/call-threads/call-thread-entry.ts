/**
 * What a call thread runs: its bundle, `call-thread.cjs` (everything `call-thread.ts` imports),
 * compiled with its code cache and started (`thread-bundle.ts`).
 */
import { CALL_THREAD_BUNDLE_FILE } from '../daemon-bundle.js';
import { serveBundle } from '../thread-bundle.js';
import type { serveCalls } from './call-thread.js';

serveBundle<{ serveCalls: typeof serveCalls }>(
  CALL_THREAD_BUNDLE_FILE,
  (exports) => exports.serveCalls,
);
