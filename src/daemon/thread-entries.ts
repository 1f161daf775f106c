/**
 * Entries of the daemon's worker threads, resolved against this module: it sits in
 * dist/daemon/, beside the daemon bundle's entry, whether the daemon runs bundled or not.
 */

/** The trace threads' entry (`trace/trace-thread.ts`), bundled like the call threads'. */
export const TRACE_THREAD_ENTRY = new URL('./trace/trace-thread.js', import.meta.url);
