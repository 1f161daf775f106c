#!/usr/bin/env node
// Profiles this node under one benchmark workload and prints where its CPU time goes:
// starts the daemon entry (dist/daemon/main.js) with `node --cpu-prof` in a fresh data
// directory, deploys the token, runs the workload, stops the daemon with SIGTERM (which writes
// the profiles, one per thread) and lists, for each thread, the functions with the most self time.
//   node scripts/bench/profile.js [--workload eth_blockNumber|eth_getBalance|eth_call|eth_call_distinct|transfers|burst]
//                                 [--duration <s>] [--top <n>]
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEV_ADDRESSES, DEV_PRIVATE_KEYS } from '../../dist/daemon/chain/genesis.js';
import { measureCommits } from './chain/commit-throughput.js';
import { signedPlan } from './chain/signed-plan-cache.js';
import { planTransactions } from './chain/transaction-plan.js';
import { runHttpLoad } from './load/http-load.js';
import { freePort } from './processes/free-port.js';
import { freshDataDir, loopbackFlags } from './processes/node-cli.js';
import { waitForBlockNumber } from './processes/wait-for-rpc.js';
import { summariseProfile } from './report/profile-summary.js';
import { connectRpc } from './rpc.js';
import { measureBurst, signedBurst } from './workloads/burst.js';
import { readWorkloads } from './workloads/read-throughput.js';

const DAEMON_ENTRY = fileURLToPath(new URL('../../dist/daemon/main.js', import.meta.url));
const WORKLOADS = [
  'eth_blockNumber',
  'eth_getBalance',
  'eth_call',
  'eth_call_distinct',
  'transfers',
  'burst',
];

const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: 'eth_blockNumber' },
    duration: { type: 'string', default: '5' },
    top: { type: 'string', default: '25' },
  },
});
if (!WORKLOADS.includes(values.workload))
  throw new Error(`--workload must be one of ${WORKLOADS.join(', ')}`);

/** The thread id in a profile's file name. */
function threadOf(file) {
  return Number(file.split('.').at(-3));
}

const addresses = [...DEV_ADDRESSES];
const plan = planTransactions(addresses, {
  valueTransfersPerSender: 200,
  tokenTransfersPerSender: 200,
});
const signed =
  values.workload === 'burst'
    ? await signedBurst(DEV_PRIVATE_KEYS[0], 4000, 'bench-results')
    : await signedPlan(plan, DEV_PRIVATE_KEYS, 'bench-results');

const dataDir = freshDataDir();
const profileDir = `${dataDir}-profile`;
const port = await freePort();
const flags = loopbackFlags(port);
const child = spawn(
  process.execPath,
  [
    '--cpu-prof',
    `--cpu-prof-dir=${profileDir}`,
    DAEMON_ENTRY,
    `--datadir=${dataDir}`,
    ...flags
      .filter((_, index) => index % 2 === 0)
      .map((flag, index) => `${flag}=${flags[index * 2 + 1]}`),
    '--block-time=1s',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const exited = new Promise((resolve) => child.once('exit', resolve));
const url = `http://127.0.0.1:${port}`;
const rpc = connectRpc(url, 16);
try {
  await waitForBlockNumber(url, 30_000);
  await measureCommits(rpc, signed.setup, 120_000);
  if (values.workload === 'burst') {
    for (const kind of ['value', 'token']) {
      console.log(`${kind} burst`, await measureBurst(rpc, url, child.pid, signed[kind], 300_000));
    }
  } else if (values.workload === 'transfers') {
    console.log('value transfers', await measureCommits(rpc, signed.value, 300_000));
    console.log('ERC-20 transfers', await measureCommits(rpc, signed.token, 300_000));
  } else {
    const load = await runHttpLoad({
      url,
      ...readWorkloads(addresses, plan.token)[values.workload],
      connections: 32,
      workers: 2,
      warmupMs: 1000,
      durationMs: Number(values.duration) * 1000,
      serverPid: child.pid,
    });
    console.log(`${values.workload}: ${load.requestsPerSecond.toFixed(0)} req/s`);
  }
} finally {
  await rpc.close();
  child.kill('SIGTERM');
  await exited;
}
// One profile per thread: CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile, where
// thread 0 is the main thread and the others are call threads (and the recovery worker).
const profileFiles = readdirSync(profileDir)
  .filter((name) => name.endsWith('.cpuprofile'))
  .sort((a, b) => threadOf(a) - threadOf(b));
for (const file of profileFiles) {
  const thread = threadOf(file);
  console.log(`\n=== ${thread === 0 ? 'main thread' : `worker thread ${thread}`} ===`);
  console.log(
    summariseProfile(JSON.parse(readFileSync(`${profileDir}/${file}`, 'utf8')), Number(values.top)),
  );
  console.log(`profile: ${profileDir}/${file}`);
}
rmSync(dataDir, { recursive: true, force: true });
