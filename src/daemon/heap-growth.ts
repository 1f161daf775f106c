/**
 * How far the daemon lets V8's heap grow past its live data. After each full collection V8 sets
 * the next one's threshold at the live size times a factor it picks from how cheap collections
 * have been, up to 4: right for short programs, but a node under a stream of transactions
 * collects cheaply, so it ended a benchmark run holding 285 MiB of heap for 75 MiB of live data.
 * A fixed 20% keeps the heap near its live size (docs/benchmarks.md has what it cost). The flag
 * is read at every collection and holds for every isolate of the process, so setting it once the
 * process runs covers the call threads and `daemon start --foreground` too.
 *
 * A bulk transfer of the storage layer is the exception. V8 counts the buffers a transfer
 * allocates and drops (socket reads, chunk reads: outside the heap, short-lived) against the
 * same threshold, so with 20% a 256 MiB upload ran 14 full collections and a download 9, about
 * half the download's CPU time (docs/benchmarks.md, "Storage throughput"). While a transfer
 * runs the threshold is therefore `TRANSFER_HEAP_GROWING_PERCENT`: the live heap does not grow
 * with a transfer, only the garbage allowed between collections, and the configured percentage
 * returns when the last transfer ends.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 20;

/** The heap growth while a bulk transfer runs (measured: 100 still collected as often as 20). */
export const TRANSFER_HEAP_GROWING_PERCENT = 400;

let configured = HEAP_GROWING_PERCENT;
let transfers = 0;
/** Only a process that called `limitHeapGrowth` (the daemon) has its flag changed here. */
let managed = false;

function apply(): void {
  if (!managed) return;
  const percent = transfers > 0 ? Math.max(configured, TRANSFER_HEAP_GROWING_PERCENT) : configured;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

export function limitHeapGrowth(): void {
  managed = true;
  apply();
}

/** Sets the configured heap growth (`debug_setGCPercent`) and answers the previous one. */
export function setHeapGrowingPercent(percent: number): number {
  const previous = configured;
  configured = percent;
  managed = true;
  apply();
  return previous;
}

/**
 * Marks a bulk transfer as running until the returned function is called (once; later calls do
 * nothing).
 */
export function beginBulkTransfer(): () => void {
  transfers += 1;
  apply();
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    transfers -= 1;
    apply();
  };
}
