/**
 * How far the daemon lets V8's heap grow past its live data. After each full collection V8 sets
 * the next one's threshold at the live size times a factor it picks from how cheap collections
 * have been, up to 4: right for short programs, but a node under a stream of transactions
 * collects cheaply, so it ended a benchmark run holding 285 MiB of heap for 75 MiB of live data.
 * A fixed 20% keeps the heap near its live size (docs/benchmarks.md has what it cost). The flag
 * is read at every collection and holds for every isolate of the process, so setting it once the
 * process runs covers the call threads and `daemon start --foreground` too.
 *
 * Two kinds of heavy work are exceptions, each raising the threshold while it runs:
 *
 * - A bulk transfer of the storage layer. V8 counts the buffers a transfer allocates and drops
 *   (socket reads, chunk reads: outside the heap, short-lived) against the same threshold, so
 *   with 20% a 256 MiB upload ran 14 full collections and a download 9, about half the
 *   download's CPU time (docs/benchmarks.md, "Storage throughput"). While a transfer runs the
 *   threshold is `TRANSFER_HEAP_GROWING_PERCENT`.
 * - A burst of transactions (heavy-work-release.ts). With 20% the main thread ran a full
 *   collection about every second of a 4 000-transfer burst, each a pause of 8–15 ms that the
 *   requests answered meanwhile waited out: they made the p99 latency of `eth_blockNumber`
 *   during bursts (docs/benchmarks.md, "Bursts: fewer full collections"). While a burst runs the
 *   threshold is `BURST_HEAP_GROWING_PERCENT`; the full collection at its end, once the node is
 *   quiet, takes the heap back down.
 *
 * The live heap does not grow with either, only the garbage allowed between collections, and
 * the configured percentage returns when the last of them ends.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 20;

/** The heap growth while a bulk transfer runs (measured: 100 still collected as often as 20). */
export const TRANSFER_HEAP_GROWING_PERCENT = 400;

/** The heap growth while a burst of transactions runs (measured: 100 left 4–5 full collections of 11–17). */
export const BURST_HEAP_GROWING_PERCENT = 100;

let configured = HEAP_GROWING_PERCENT;
/** The percentages of the raises in force, one entry per raise. */
const raises: number[] = [];
/** Only a process that called `limitHeapGrowth` (the daemon) has its flag changed here. */
let managed = false;

function apply(): void {
  if (!managed) return;
  setFlagsFromString(`--heap-growing-percent=${Math.max(configured, ...raises)}`);
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
 * Lets the heap grow `percent` past its live data until the returned function is called (once;
 * later calls do nothing), or more where the configuration or another raise says so.
 */
export function raiseHeapGrowth(percent: number): () => void {
  raises.push(percent);
  apply();
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    raises.splice(raises.indexOf(percent), 1);
    apply();
  };
}

/** Raises the heap growth for a bulk transfer of the storage layer; see `raiseHeapGrowth`. */
export function beginBulkTransfer(): () => void {
  return raiseHeapGrowth(TRANSFER_HEAP_GROWING_PERCENT);
}
