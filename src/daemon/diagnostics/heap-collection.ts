/**
 * A full, memory-reducing collection of the main thread's heap. V8 offers it to a running process
 * only through the inspector (without `--expose-gc`); it compacts the heap and hands the pages it
 * no longer needs back to the system, which an ordinary full collection does not do at once.
 */
import { Session } from 'node:inspector/promises';

let session: Session | undefined;

export async function collectHeapFully(): Promise<void> {
  if (session === undefined) {
    session = new Session();
    session.connect();
  }
  await session.post('HeapProfiler.collectGarbage');
}
