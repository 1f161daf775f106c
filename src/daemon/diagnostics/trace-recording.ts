/**
 * Trace events of the whole process (all threads) through the inspector's `NodeTracing` domain:
 * V8 (compilation, garbage collection), Node's own milestones and performance marks, and the
 * life of every asynchronous resource (promises, sockets, timers), which is what Go's execution
 * trace shows of goroutines. The file is Chrome's trace-event JSON (`{"traceEvents": [...]}`),
 * which Perfetto, chrome://tracing and DevTools' Performance panel open. Events are written to
 * the file as the tracing agent hands them over, so a long trace is not held in memory.
 */
import type { Session } from 'node:inspector/promises';
import type { ProfileDirectory } from './profile-directory.js';
import type { Recording } from './recorder.js';

const TRACE_CATEGORIES: readonly string[] = ['v8', 'node', 'node.perf', 'node.async_hooks'];

interface DataCollected {
  params: { value: unknown[] };
}

export async function beginTrace(
  session: Session,
  directory: ProfileDirectory,
  path: string,
): Promise<Recording> {
  const file = directory.pending(path);
  const handle = await file.open();
  // Writes run one after another; the first failure is kept and reported when the trace ends.
  let written = Promise.resolve();
  let failure: unknown;
  const append = (text: string) => {
    written = written
      .then(async () => {
        if (failure === undefined) await handle.write(text);
      })
      .catch((error: unknown) => {
        failure ??= error;
      });
  };
  let separator = '';
  const onData = ({ params }: DataCollected) => {
    if (params.value.length === 0) return;
    append(separator + params.value.map((event) => JSON.stringify(event)).join(','));
    separator = ',';
  };
  const fail = async (error: unknown) => {
    session.off('NodeTracing.dataCollected', onData);
    await written;
    await handle.close().catch(() => undefined);
    return file.discard(error);
  };
  append('{"traceEvents":[');
  session.on('NodeTracing.dataCollected', onData);
  try {
    await session.post('NodeTracing.start', {
      traceConfig: { includedCategories: [...TRACE_CATEGORIES] },
    });
  } catch (error) {
    throw await fail(error);
  }
  return {
    finish: async () => {
      try {
        const complete = new Promise<void>((resolve) =>
          session.once('NodeTracing.tracingComplete', () => resolve()),
        );
        await session.post('NodeTracing.stop');
        await complete;
        append(']}');
        await written;
        if (failure !== undefined) throw failure;
        session.off('NodeTracing.dataCollected', onData);
        await handle.close();
        await file.commit();
      } catch (error) {
        throw await fail(error);
      }
    },
  };
}
