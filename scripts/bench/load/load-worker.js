// One load-generating process: opens its share of keep-alive connections with plain `net`
// sockets and keeps exactly one request in flight on each, re-sending pre-serialised HTTP
// requests as soon as the previous answer is complete. Driven by the parent over IPC:
//   parent -> {type:'run', host, port, requests: string[], connections, warmupMs, durationMs}
//   worker -> {type:'connected'} once every socket is open, then waits for {type:'go'}
//   worker -> {type:'done', result} with counts for the measured window, the latency histogram
//             and this process's CPU time over that window.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ResponseReader } from './response-reader.js';
import { emptyHistogram, record } from './latency-histogram.js';

/** @param {string} host @param {number} port */
function openSocket(host, port) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** @param {{host: string, port: number, requests: string[], connections: number, warmupMs: number, durationMs: number}} plan */
async function run(plan) {
  const requests = plan.requests.map((text) => Buffer.from(text, 'latin1'));
  const sockets = await Promise.all(
    Array.from({ length: plan.connections }, () => openSocket(plan.host, plan.port)),
  );
  process.send({ type: 'connected' });
  await new Promise((resolve) => process.once('message', resolve));

  const histogram = emptyHistogram();
  const counts = { ok: 0, httpErrors: 0, rpcErrors: 0 };
  let measuring = false;
  let stopped = false;
  let next = 0;

  const start = performance.now();
  const measureFrom = start + plan.warmupMs;
  const measureUntil = measureFrom + plan.durationMs;
  let cpuAtStart = process.cpuUsage();

  const finished = sockets.map(
    (socket) =>
      new Promise((resolve, reject) => {
        let sentAt = 0;
        const send = () => {
          sentAt = performance.now();
          socket.write(requests[next]);
          next = next + 1 === requests.length ? 0 : next + 1;
        };
        const reader = new ResponseReader(({ status, rpcError }) => {
          const now = performance.now();
          if (!measuring && now >= measureFrom && now < measureUntil) {
            measuring = true;
            cpuAtStart = process.cpuUsage();
          }
          if (measuring && now < measureUntil) {
            record(histogram, now - sentAt);
            if (status !== 200) counts.httpErrors += 1;
            else if (rpcError) counts.rpcErrors += 1;
            else counts.ok += 1;
          }
          if (now >= measureUntil) {
            stopped = true;
            resolve();
            return;
          }
          send();
        });
        socket.on('data', (chunk) => {
          try {
            reader.push(chunk);
          } catch (error) {
            reject(error);
          }
        });
        socket.once('error', reject);
        socket.once('close', () => (stopped ? resolve() : reject(new Error('server closed'))));
        send();
      }),
  );
  await Promise.all(finished);
  const cpu = process.cpuUsage(cpuAtStart);
  for (const socket of sockets) socket.destroy();
  return {
    ...counts,
    windowMs: plan.durationMs,
    cpuMicros: cpu.user + cpu.system,
    histogram,
  };
}

process.once('message', (plan) => {
  run(plan).then(
    (result) => process.send({ type: 'done', result }, () => process.exit(0)),
    (error) =>
      process.send({ type: 'failed', message: String(error?.message ?? error) }, () =>
        process.exit(1),
      ),
  );
});
