/**
 * Trace events of the whole process (all threads) through the inspector's `NodeTracing` domain:
 * V8 (compilation, garbage collection), Node's own milestones and performance marks, and the
 * life of every asynchronous resource (promises, sockets, timers), which is what Go's execution
 * trace shows of goroutines. The file is Chrome's trace-event JSON (`{"traceEvents": [...]}`),
 * which Perfetto, chrome://tracing and DevTools' Performance panel open. Events are written to
 * the file as the tracing agent hands them over, so a long trace is not held in memory; past
 * `maxBytes` further events are dropped and counted (`otherData.droppedEvents`), so a long
 * trace of a busy node cannot fill the disk the chain lives on.
 */
import type { Session } from 'node:inspector/promises';
import type { ProfileDirectory } from './profile-directory.js';
import type { Recording } from './recorder.js';

const TRACE_CATEGORIES: readonly string[] = ['v8', 'node', 'node.perf', 'node.async_hooks'];

/** A trace file stops growing here: about four million events. */
export const MAX_TRACE_BYTES = 1024 ** 3;

interface DataCollected {
  params: { value: unknown[] };
}

export async function beginTrace(
  session: Session,
  directory: ProfileDirectory,
  path: string,
  maxBytes = MAX_TRACE_BYTES,
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
  let bytes = 0;
  let dropped = 0;
  let full = false;
  const onData = ({ params }: DataCollected) => {
    const kept: string[] = [];
    for (const [index, event] of params.value.entries()) {
      const text = full ? '' : JSON.stringify(event);
      if (full || bytes + text.length + 1 > maxBytes) {
        // The file ends at the first event that does not fit, never with gaps in its middle.
        full = true;
        dropped += params.value.length - index;
        break;
      }
      bytes += text.length + 1;
      kept.push(text);
    }
    if (kept.length === 0) return;
    append(separator + kept.join(','));
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
        append(`],"otherData":{"droppedEvents":"${dropped}"}}`);
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
