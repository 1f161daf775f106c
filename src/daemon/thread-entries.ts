/**
 * Entries of the daemon's worker threads, resolved against this module: it sits in
 * dist/daemon/, beside the daemon bundle's entry, whether the daemon runs bundled or not.
 */

/**
 * The call threads' entry: the build's CommonJS copy of `call-threads/call-thread-entry.ts`,
 * which loads their bundle with its code cache.
 */
export const CALL_THREAD_ENTRY = new URL('./call-threads/call-thread-entry.cjs', import.meta.url);

/**
 * The trace threads' entry: the build's CommonJS copy of `trace/trace-thread-entry.ts`, which
 * loads their bundle with its code cache.
 */
export const TRACE_THREAD_ENTRY = new URL('./trace/trace-thread-entry.cjs', import.meta.url);
