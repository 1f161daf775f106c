/**
 * The Go-runtime methods of the debug namespace, mapped to Node's own instruments
 * (decisions §10). Each answer is real data about this process.
 */
import { getHeapStatistics } from 'node:v8';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';

/** `debug_memStats`: process memory and V8 heap statistics, in bytes. */
export function memStats(): Record<string, number> {
  const usage = process.memoryUsage();
  const heap = getHeapStatistics();
  return {
    rss: usage.rss,
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    heapSizeLimit: heap.heap_size_limit,
    totalAvailableSize: heap.total_available_size,
    mallocedMemory: heap.malloced_memory,
    peakMallocedMemory: heap.peak_malloced_memory,
    nativeContexts: heap.number_of_native_contexts,
  };
}

export const debugRuntimeMethods: readonly MethodDefinition[] = [
  defineMethod<[]>({ name: 'debug_memStats', params: [], handler: () => memStats() }),
];
