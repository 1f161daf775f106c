// Samples eth_blockNumber latency while something else loads the node: a client on a thread of
// its own (the load keeps the caller's event loop busy) asks every SAMPLE_GAP_MS on one kept-alive
// connection and records how long each answer took. Sampling starts once that connection has
// answered a first time: started together with a burst, the first sample was the thread's
// start-up and connection set-up racing the burst's own connections (0.3-0.5 s for anvil and this
// node alike), and with about a hundred samples it alone was the p99.
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { connectRpc } from '../rpc.js';

const SAMPLE_GAP_MS = 20;

/**
 * Starts sampling `url` and resolves, once the sampler's connection is up, with `stop()`, which
 * resolves with the latencies in ms, in the order they were taken.
 * @param {string} url @returns {Promise<() => Promise<number[]>>}
 */
export async function sampleLatency(url) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { url } });
  const failed = new Promise((_, reject) => worker.once('error', reject));
  failed.catch(() => undefined);
  await Promise.race([new Promise((resolve) => worker.once('message', resolve)), failed]);
  const latencies = Promise.race([
    new Promise((resolve) => worker.once('message', resolve)),
    failed,
  ]);
  return () => {
    worker.postMessage('stop');
    return latencies;
  };
}

/** The sampling thread's loop. */
async function sampleInThread({ url }) {
  const rpc = connectRpc(url, 1);
  let running = true;
  parentPort.once('message', () => (running = false));
  await rpc.call('eth_blockNumber', []);
  parentPort.postMessage('ready');
  const latencies = [];
  while (running) {
    const started = performance.now();
    await rpc.call('eth_blockNumber', []);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_GAP_MS));
  }
  await rpc.close();
  parentPort.postMessage(latencies);
}

if (!isMainThread) await sampleInThread(workerData);

/** The `p` quantile (0..1) of ascending `sorted` latencies; 0 when there are none. */
export function percentile(sorted, p) {
  return sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}
