// Drives a fixed number of keep-alive connections against one JSON-RPC endpoint from several
// worker processes, so the load generator is not limited to one core, and aggregates what they
// measured. Every worker connects first; all start together when the last one is connected.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cpuSeconds } from '../processes/proc-stats.js';
import { systemBusySeconds } from '../processes/system-cpu.js';
import { emptyHistogram, merge, percentile } from './latency-histogram.js';

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/**
 * Serialises JSON-RPC bodies into complete HTTP/1.1 POST requests, once, before the measurement.
 * @param {URL} url @param {object[]} bodies
 */
function serialiseRequests(url, bodies) {
  return bodies.map((body) => {
    const json = JSON.stringify(body);
    return (
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: keep-alive\r\n\r\n${json}`
    );
  });
}

/** @param {import('node:child_process').ChildProcess} child @param {string} type */
function nextMessage(child, type) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if (message.type === type) {
        child.off('message', onMessage);
        resolve(message);
      } else if (message.type === 'failed') {
        child.off('message', onMessage);
        reject(new Error(`load worker failed: ${message.message}`));
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load worker exited with code ${code}`));
    });
  });
}

/**
 * @typedef {object} LoadResult
 * @property {number} requestsPerSecond successful answers per second over the window
 * @property {number} ok
 * @property {number} httpErrors
 * @property {number} rpcErrors
 * @property {number|null} p50Ms
 * @property {number|null} p99Ms
 * @property {number} clientCpuShare CPU time of all workers / window wall time (1.0 = one core)
 * @property {number|null} serverCpuShare the same for the server process
 * @property {number|null} machineCpuShare busy CPU of the whole machine (all processes)
 */

/**
 * Runs one load test: `connections` keep-alive connections split over `workers` processes, each
 * keeping one request in flight, for `warmupMs` unmeasured then `durationMs` measured.
 * The CPU used by `serverPid` and by the whole machine is sampled over the measured window.
 * With `splitBodies` each worker sends its own slice of the bodies, so no request is sent twice
 * as long as there are more bodies than requests; otherwise each worker rotates over all of them.
 * @param {{url: string, bodies: object[], splitBodies?: boolean, connections: number, workers: number, warmupMs: number, durationMs: number, serverPid: number}} options
 * @returns {Promise<LoadResult>}
 */
export async function runHttpLoad(options) {
  const url = new URL(options.url);
  const requests = serialiseRequests(url, options.bodies);
  const workers = Array.from({ length: options.workers }, () =>
    fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const windowTimers = [];
  const deadline = setTimeout(
    () => workers.forEach((child) => child.kill('SIGKILL')),
    options.warmupMs + options.durationMs + 30_000,
  );
  try {
    const connected = workers.map((child) => nextMessage(child, 'connected'));
    workers.forEach((child, index) => {
      const connections =
        Math.floor(options.connections / options.workers) +
        (index < options.connections % options.workers ? 1 : 0);
      const share = Math.ceil(requests.length / options.workers);
      child.send({
        type: 'run',
        host: url.hostname,
        port: Number(url.port),
        requests: options.splitBodies
          ? requests.slice(index * share, (index + 1) * share)
          : requests,
        connections,
        warmupMs: options.warmupMs,
        durationMs: options.durationMs,
      });
    });
    await Promise.all(connected);
    const done = workers.map((child) => nextMessage(child, 'done'));
    workers.forEach((child) => child.send({ type: 'go' }));
    // The server's and the machine's CPU are read from the opening of the measured window to
    // the moment every worker has finished its window.
    const sampleCpu = () => ({
      server: cpuSeconds(options.serverPid),
      machine: systemBusySeconds(),
      at: performance.now(),
    });
    let atStart = null;
    windowTimers.push(setTimeout(() => (atStart = sampleCpu()), options.warmupMs));
    const results = (await Promise.all(done)).map((message) => message.result);
    const atEnd = sampleCpu();
    const seconds = atStart ? (atEnd.at - atStart.at) / 1000 : 0;
    const cpu = {
      serverCpuShare: seconds > 0 ? (atEnd.server - atStart.server) / seconds : null,
      machineCpuShare: seconds > 0 ? (atEnd.machine - atStart.machine) / seconds : null,
    };

    const histogram = emptyHistogram();
    const total = { ok: 0, httpErrors: 0, rpcErrors: 0, cpuMicros: 0 };
    for (const result of results) {
      merge(histogram, result.histogram);
      total.ok += result.ok;
      total.httpErrors += result.httpErrors;
      total.rpcErrors += result.rpcErrors;
      total.cpuMicros += result.cpuMicros;
    }
    return {
      requestsPerSecond: total.ok / (options.durationMs / 1000),
      ok: total.ok,
      httpErrors: total.httpErrors,
      rpcErrors: total.rpcErrors,
      p50Ms: percentile(histogram, 0.5),
      p99Ms: percentile(histogram, 0.99),
      clientCpuShare: total.cpuMicros / 1000 / options.durationMs,
      ...cpu,
    };
  } finally {
    clearTimeout(deadline);
    windowTimers.forEach(clearTimeout);
  }
}
