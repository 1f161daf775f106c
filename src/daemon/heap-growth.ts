/**
 * How far the daemon lets V8's heap grow past its live data. After each full collection V8 sets
 * the next one's threshold at the live size times a factor it picks from how cheap collections
 * have been, up to 4: right for short programs, but a node under a stream of transactions
 * collects cheaply, so it ended a benchmark run holding 285 MiB of heap for 75 MiB of live data.
 * A fixed 20% keeps the heap near its live size (docs/benchmarks.md has what it cost). The flag
 * is read at every collection and holds for every isolate of the process, so setting it once the
 * process runs covers the call threads and `daemon start --foreground` too.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 20;

export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
