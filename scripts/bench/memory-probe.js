#!/usr/bin/env node
// Where this node's resident memory goes, step by step (docs/benchmarks.md, "Memory"): a fresh
// daemon at block time 1 s, idle; the burst workload's set-up and its value and ERC-20 bursts
// (workloads/burst.js); `--calls` eth_call of balanceOf for owners never asked (eight in
// flight); then `--idle-seconds` without requests, and one more call; then `--log-queries`
// eth_getLogs of every Transfer log of the token (4 000 and more, one after another: 20 of them
// answer about the 42 MB of the benchmark's last step, eight of 10 000 logs), and
// `--idle-seconds` again. After each step it prints
// resident memory by mapping (/proc/<pid>/smaps), what debug_memStats says of the main heap,
// the daemon's threads and CPU time so far; at the end, the log's lines of memory releases (with
// `-- --log-level debug`). Flags after `--` go to `daemon start`.
//   node scripts/bench/memory-probe.js [--calls 3000] [--idle-seconds 8] [--log-queries 20]
//     [-- --json-rpc.evm-idle 0]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getCreateAddress, Wallet } from 'ethers';
import { DEV_PRIVATE_KEYS } from '../../dist/daemon/chain/genesis.js';
import { measureCommits } from './chain/commit-throughput.js';
import { balanceOfData, TRANSFER_TOPIC } from './chain/token-fixture.js';
import { startNodeCli } from './processes/node-cli.js';
import { cpuSeconds, cpuSecondsByThread, residentByMapping } from './processes/proc-stats.js';
import { connectRpc } from './rpc.js';
import { measureBurst, signedBurst } from './workloads/burst.js';

const TIMEOUT_MS = 600_000;
const CALLS_IN_FLIGHT = 8;
const { values, positionals } = parseArgs({
  options: {
    calls: { type: 'string', default: '3000' },
    'idle-seconds': { type: 'string', default: '8' },
    'log-queries': { type: 'string', default: '20' },
  },
  allowPositionals: true,
});
const calls = Number(values.calls);
const idleMs = Number(values['idle-seconds']) * 1000;
const logQueries = Number(values['log-queries']);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const signed = await signedBurst(DEV_PRIVATE_KEYS[0], 4000, 'bench-results');
const token = getCreateAddress({ from: new Wallet(DEV_PRIVATE_KEYS[0]).address, nonce: 0 });
const node = await startNodeCli('1s', positionals);
const rpc = connectRpc(node.url, 16);
const distinctCall = () =>
  rpc.call('eth_call', [
    { to: token, data: balanceOfData(`0x${randomBytes(20).toString('hex')}`) },
    'latest',
  ]);

async function report(step) {
  const mappings = residentByMapping(node.pid);
  const total = mappings.reduce((sum, [, mib]) => sum + mib, 0);
  const parts = mappings.filter(([, mib]) => mib >= 1);
  const threads = Object.keys(cpuSecondsByThread(node.pid)).length;
  console.log(
    `${step}: ${total.toFixed(1)} MiB (${parts.map(([name, mib]) => `${name} ${mib.toFixed(1)}`).join(', ')}); ` +
      `main heap ${JSON.stringify(await node.heapMiB())}; ${threads} threads, ${cpuSeconds(node.pid).toFixed(2)} s CPU`,
  );
}

try {
  await sleep(3000);
  await report('idle after start');
  await measureCommits(rpc, signed.setup, TIMEOUT_MS);
  for (const kind of ['value', 'token']) {
    const burst = await measureBurst(rpc, node.url, node.pid, signed[kind], TIMEOUT_MS);
    console.log(
      `${kind} burst: accepted ${burst.acceptedPerSecond.toFixed(0)}/s, committed ${burst.committedPerSecond.toFixed(0)}/s, CPU ms per 1 000: ${burst.cpuMsPer1000Accepted} accepted, ${burst.cpuMsPer1000Committed} committed`,
    );
  }
  await report('right after the bursts');
  const cpuBefore = cpuSeconds(node.pid);
  const started = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: CALLS_IN_FLIGHT }, async () => {
      while (sent < calls) {
        sent++;
        await distinctCall();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuMicros = ((cpuSeconds(node.pid) - cpuBefore) * 1e6) / calls;
  console.log(
    `${calls} distinct calls: ${(calls / seconds).toFixed(0)}/s, ${cpuMicros.toFixed(0)} µs CPU each`,
  );
  await report('right after the calls');
  await sleep(idleMs);
  await report(`${idleMs / 1000} s later`);
  const asked = performance.now();
  await distinctCall();
  console.log(`one more call: answered in ${(performance.now() - asked).toFixed(1)} ms`);
  if (logQueries > 0) {
    const filter = {
      address: token,
      topics: [TRANSFER_TOPIC],
      fromBlock: '0x0',
      toBlock: 'latest',
    };
    let logs = 0;
    for (let query = 0; query < logQueries; query++)
      logs = (await rpc.call('eth_getLogs', [filter])).length;
    await report(`right after ${logQueries} eth_getLogs of ${logs} logs`);
    await sleep(idleMs);
    await report(`${idleMs / 1000} s later`);
  }
} finally {
  const log = readFileSync(join(node.dataDir, 'logs', 'daemon.log'), 'utf8');
  for (const line of log.split('\n')) {
    if (/"msg":"(memory released|heap collected|malloc_trim)/.test(line)) console.log(line);
  }
  await rpc.close();
  await node.stop();
}
