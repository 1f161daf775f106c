#!/usr/bin/env node
// `npm run bench`: the same workloads against this node and anvil in one run, printed as tables
// with the ratio node/anvil and PASS/MISS per target, and written to bench-results/latest.json.
// Each node starts fresh (dev chain id 9000, the ten funded dev accounts), so one set of
// transactions signed up front is valid on each. Progress goes to stderr, the report to stdout.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { DEV_ADDRESSES, DEV_PRIVATE_KEYS } from '../../dist/daemon/chain/genesis.js';
import { measureCommits } from './chain/commit-throughput.js';
import { signedPlan } from './chain/signed-plan-cache.js';
import { planTransactions } from './chain/transaction-plan.js';
import { ANVIL_BINARY, startAnvil } from './processes/anvil.js';
import { startNodeCli } from './processes/node-cli.js';
import { residentMiB } from './processes/proc-stats.js';
import { evaluateTargets } from './report/targets.js';
import { renderReport } from './report/table.js';
import { connectRpc } from './rpc.js';
import { readSettings } from './settings.js';
import { measureAnvilStart, measureNodeCliStart } from './workloads/cold-start.js';
import { measureLogs } from './workloads/logs-latency.js';
import { measureMetricsOverhead } from './workloads/metrics-overhead.js';
import { measureRestarts } from './workloads/restart.js';
import { measureStorageThroughput } from './workloads/storage-throughput.js';
import { measureStallProbes } from './workloads/stall-probes.js';
import { nodeCliBurstFlags, runBurstSuite, signedBurst } from './workloads/burst.js';
import { measureReadsAlternating, readWorkloads } from './workloads/read-throughput.js';
import { SOAK_DEFAULTS, runSoak } from './workloads/soak.js';

const COMMIT_TIMEOUT_MS = 600_000;
/**
 * How long each node is left without requests after its suite before its resident memory is
 * read again: past this node's call-thread idle time (`--json-rpc.evm-idle`, 30 s), so both
 * nodes are read as they rest after the benchmark, and beside the figure read at once.
 */
const AT_REST_MS = 40_000;
const addresses = [...DEV_ADDRESSES];

/** @param {string} message */
function progress(message) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Deploys and distributes the token; fails loudly if that did not work. */
async function deployToken(rpc, signed, token) {
  const setup = await measureCommits(rpc, signed.setup, COMMIT_TIMEOUT_MS);
  const code = await rpc.call('eth_getCode', [token, 'latest']);
  if (setup.failed > 0 || code === '0x') throw new Error('token deployment failed');
}

/** Nodes started and not yet stopped, stopped on SIGINT or SIGTERM so none outlives the run. */
const runningNodes = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    progress(`${signal}: stopping ${runningNodes.size} node(s)`);
    Promise.allSettled([...runningNodes].map((node) => node.stop())).then(() => process.exit(130));
  });
}

/** Starts a node through `start` and tracks it until it is stopped. */
async function startTracked(start, blockTime) {
  const node = await start(blockTime);
  const stop = node.stop;
  const tracked = {
    ...node,
    stop: async () => {
      runningNodes.delete(tracked);
      await stop();
    },
  };
  runningNodes.add(tracked);
  return tracked;
}

/**
 * Runs one measurement. A failing measurement (a method the node does not serve yet, a timeout)
 * is recorded as `{error}` so the other figures of the run are still reported.
 * @param {string} what @param {() => Promise<object>} measure
 */
async function step(what, measure) {
  progress(what);
  try {
    const result = await measure();
    progress(`${what}: done`);
    return result;
  } catch (error) {
    progress(`${what}: FAILED: ${error.message}`);
    return { error: `${what}: ${error.message}` };
  }
}

/** Starts a node at block time 1 s and deploys the token; its memory is read once it has. */
async function prepareNode(start, signed, token) {
  const node = await startTracked(start, '1');
  const rpc = connectRpc(node.url, 48);
  try {
    progress(`${node.name}: deploy token`);
    await deployToken(rpc, signed, token);
    return { node, rpc, memory: { afterStart: residentMiB(node.pid) } };
  } catch (error) {
    await rpc.close();
    await node.stop();
    throw error;
  }
}

/**
 * The rest of a node's suite after the reads: commits at block time 1 s, eth_getLogs, and
 * resident memory after each phase and once more at rest (`AT_REST_MS`). Stops the node.
 */
async function finishSuite({ node, rpc, memory }, signed, token, settings) {
  try {
    memory.afterReads = residentMiB(node.pid);
    const value = await step(`${node.name}: value transfers`, () =>
      measureCommits(rpc, signed.value, COMMIT_TIMEOUT_MS),
    );
    const tokenTransfers = await step(`${node.name}: ERC-20 transfers`, () =>
      measureCommits(rpc, signed.token, COMMIT_TIMEOUT_MS),
    );
    memory.afterTransfers = residentMiB(node.pid);
    const logs = await step(`${node.name}: eth_getLogs`, () =>
      measureLogs(rpc, token, tokenTransfers, settings.logQueryRuns),
    );
    memory.afterRun = residentMiB(node.pid);
    memory.heapAfterRun = await node.heapMiB?.();
    progress(`${node.name}: at rest for ${AT_REST_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, AT_REST_MS));
    memory.atRest = residentMiB(node.pid);
    return { transfers: { value, token: tokenTransfers }, logs, memory };
  } finally {
    await rpc.close();
    await node.stop();
  }
}

/** Commit throughput only, on a node started with `blockTime`. */
async function commitSuite(start, blockTime, signed, token) {
  const node = await startTracked(start, blockTime);
  const rpc = connectRpc(node.url, 48);
  try {
    progress(`${node.name} (block time ${blockTime}): deploy token`);
    await deployToken(rpc, signed, token);
    const value = await step(`${node.name} (block time ${blockTime}): value transfers`, () =>
      measureCommits(rpc, signed.value, COMMIT_TIMEOUT_MS),
    );
    const tokenTransfers = await step(
      `${node.name} (block time ${blockTime}): ERC-20 transfers`,
      () => measureCommits(rpc, signed.token, COMMIT_TIMEOUT_MS),
    );
    return { value, token: tokenTransfers };
  } finally {
    await rpc.close();
    await node.stop();
  }
}

function machine() {
  const model = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
  return {
    cores: cpus().length,
    loadAverageAtEnd: loadavg(),
    cpuModel: model ?? 'unknown',
    node: process.version,
    anvil: execFileSync(ANVIL_BINARY, ['--version'], { encoding: 'utf8' }).split('\n')[0],
  };
}

const settings = readSettings(process.argv.slice(2));
const plan = planTransactions(addresses, settings);
const signed = await step('signing the transactions offline (or reusing the cache)', () =>
  signedPlan(plan, DEV_PRIVATE_KEYS, dirname(settings.output)),
);

const starters = {
  anvil: (bt) => startAnvil(Number(bt)),
  'node-cli': (bt, flags) => startNodeCli(bt === '1' ? '1s' : bt, flags),
};
const results = {};
// Cold starts first, with nothing else running.
if (settings.nodes.includes('anvil')) {
  results.anvil = {
    coldStart: await step('anvil: cold starts', () => measureAnvilStart(settings.coldStartRuns)),
  };
}
if (settings.nodes.includes('node-cli')) {
  results['node-cli'] = {
    coldStart: await step('node-cli: cold starts', () =>
      measureNodeCliStart(settings.coldStartRuns),
    ),
    restart: await step('node-cli: restarts and stops on a data directory with history', () =>
      measureRestarts(settings.coldStartRuns, dirname(settings.output), progress),
    ),
    storage: await step('node-cli: storage upload and download of 256 MiB beside dd and cat', () =>
      measureStorageThroughput(256),
    ),
  };
}
// Both nodes up, reads alternating between them; then each node's own suite in turn.
const prepared = {};
for (const name of settings.nodes) {
  const ready = await step(`${name}: start`, () => prepareNode(starters[name], signed, plan.token));
  if (ready.error) results[name].error = ready.error;
  else prepared[name] = ready;
}
const reads = await step('read load tests, alternating between the nodes', () =>
  measureReadsAlternating(
    Object.entries(prepared).map(([name, { node, rpc }]) => ({
      name,
      rpc,
      url: node.url,
      pid: node.pid,
    })),
    readWorkloads(addresses, plan.token),
    settings,
  ),
);
for (const [name, ready] of Object.entries(prepared)) {
  results[name].reads = reads.error ? reads : reads[name];
  Object.assign(
    results[name],
    await step(`${name}: transfers, eth_getLogs and memory`, () =>
      finishSuite(ready, signed, plan.token, settings),
    ),
  );
}
// The bursts, each node fresh at block time 1 s, one node at a time.
const bursts = { burst: 4000, ...(settings.burst10k ? { burst10k: 10_000 } : {}) };
for (const [key, count] of Object.entries(bursts)) {
  const signedBurstPlan = await signedBurst(DEV_PRIVATE_KEYS[0], count, dirname(settings.output));
  for (const name of settings.nodes) {
    results[name][key] = await step(`${name}: ${key}`, () =>
      runBurstSuite(
        () => startTracked((bt) => starters[name](bt, nodeCliBurstFlags(count)), '1'),
        signedBurstPlan,
        progress,
        COMMIT_TIMEOUT_MS,
      ),
    );
  }
}
// The soak, opt-in (--soak <minutes>): long, so it runs only when asked for.
if (settings.soakMinutes > 0) {
  for (const name of settings.nodes) {
    results[name].soak = await step(`${name}: soak of ${settings.soakMinutes} min`, () =>
      runSoak(
        () => startTracked(starters[name], '1'),
        DEV_PRIVATE_KEYS,
        { ...SOAK_DEFAULTS, minutes: settings.soakMinutes },
        progress,
      ),
    );
  }
}
if (settings.nodes.includes('node-cli')) {
  results['node-cli'].transfersBlockTime0 = await step('node-cli: block time 0 suite', () =>
    commitSuite(starters['node-cli'], '0', signed, plan.token),
  );
  results['node-cli'].stallProbes = await step('node-cli: stall probes', () =>
    measureStallProbes(progress),
  );
}
if (settings.nodes.includes('node-cli')) {
  results['node-cli'].metricsOverhead = await step(
    'node-cli: read throughput with metrics on and off',
    () => measureMetricsOverhead(settings, progress),
  );
}

const outcomes = evaluateTargets(results);
console.log(renderReport(results, outcomes));
mkdirSync(dirname(settings.output), { recursive: true });
writeFileSync(
  settings.output,
  `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), settings, results, targets: outcomes }, null, 2)}\n`,
);
progress(`results written to ${settings.output}`);
