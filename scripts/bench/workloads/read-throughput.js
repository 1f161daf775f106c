// Workload (a): requests per second at a fixed number of keep-alive connections for three reads
// of increasing cost: eth_blockNumber, eth_getBalance and an ERC-20 balanceOf through eth_call.
// The bodies rotate over the ten dev accounts so no single cache line decides the result; a
// fourth workload calls balanceOf for owners that never repeat, which no cache can answer.
import { runHttpLoad } from '../load/http-load.js';
import { balanceOfData } from '../chain/token-fixture.js';
import { mean } from '../statistics.js';

/** @param {string} method @param {unknown[]} params */
const body = (method, params) => ({ jsonrpc: '2.0', id: 1, method, params });

/**
 * Distinct owners for `eth_call_distinct`: more than either node answers in a load test, so no
 * request repeats and no answer can come from a cache of earlier calls.
 */
const DISTINCT_OWNERS = 2 ** 17;

/** Owner address number `index`: 20 bytes that are not any real account's. */
const syntheticOwner = (index) => `0x${'be'.repeat(16)}${index.toString(16).padStart(8, '0')}`;

/**
 * The read workloads, by name: their JSON-RPC bodies, and whether the load workers share out
 * the bodies (each worker sends its own slice) instead of each rotating over all of them.
 * `eth_call` rotates over the ten dev accounts as a dapp polling balances would, so a node may
 * answer most of it from a cache; `eth_call_distinct` never asks the same question twice.
 */
export function readWorkloads(addresses, token) {
  const balanceOf = (owner) =>
    body('eth_call', [{ to: token, data: balanceOfData(owner) }, 'latest']);
  return {
    eth_blockNumber: { bodies: [body('eth_blockNumber', [])] },
    eth_getBalance: {
      bodies: addresses.map((address) => body('eth_getBalance', [address, 'latest'])),
    },
    eth_call: { bodies: addresses.map(balanceOf) },
    eth_call_distinct: {
      bodies: Array.from({ length: DISTINCT_OWNERS }, (_, index) =>
        balanceOf(syntheticOwner(index)),
      ),
      splitBodies: true,
    },
  };
}

/** One figure per load test from several runs of it: means of rates, latencies and CPU shares. */
function combineRounds(rounds) {
  const field = (name) => mean(rounds.map((round) => round[name]));
  const total = (name) => rounds.reduce((sum, round) => sum + round[name], 0);
  return {
    requestsPerSecond: field('requestsPerSecond'),
    ok: total('ok'),
    httpErrors: total('httpErrors'),
    rpcErrors: total('rpcErrors'),
    p50Ms: field('p50Ms'),
    p99Ms: field('p99Ms'),
    clientCpuShare: field('clientCpuShare'),
    serverCpuShare: field('serverCpuShare'),
    machineCpuShare: field('machineCpuShare'),
    rounds,
  };
}

/**
 * Runs each read workload on every node in turn, `settings.readRounds` times, and gives per node
 * and workload the mean of its rounds (the rounds themselves under `rounds`). Alternating keeps
 * the nodes' figures comparable on a machine whose speed drifts by a tenth within minutes: a
 * workload's runs on the two nodes are seconds apart, not the length of a whole suite. Each node
 * is checked first to answer the workload's first body with a result (an error answer would
 * otherwise be measured as throughput); a workload that fails on a node is recorded there as
 * `{error}` and the others still run.
 * @param {Array<{name: string, rpc: import('../rpc.js').Rpc, url: string, pid: number}>} nodes
 * @param {Record<string, {bodies: object[], splitBodies?: boolean}>} workloads
 * @param {import('../settings.js').BenchSettings} settings
 * @returns {Promise<Record<string, Record<string, object>>>} by node name, then workload
 */
export async function measureReadsAlternating(nodes, workloads, settings) {
  const results = Object.fromEntries(nodes.map((node) => [node.name, {}]));
  for (const [name, { bodies, splitBodies }] of Object.entries(workloads)) {
    const rounds = new Map(nodes.map((node) => [node.name, []]));
    const failed = new Map();
    for (let round = 0; round < settings.readRounds; round++) {
      for (const node of nodes) {
        if (failed.has(node.name)) continue;
        try {
          if (round === 0) await node.rpc.call(bodies[0].method, bodies[0].params);
          rounds.get(node.name).push(
            await runHttpLoad({
              url: node.url,
              bodies,
              splitBodies,
              connections: settings.connections,
              workers: settings.loadWorkers,
              warmupMs: settings.warmupMs,
              durationMs: settings.durationMs,
              serverPid: node.pid,
            }),
          );
        } catch (error) {
          failed.set(node.name, { error: `${name}: ${error.message}` });
        }
      }
    }
    for (const node of nodes) {
      results[node.name][name] = failed.get(node.name) ?? combineRounds(rounds.get(node.name));
    }
  }
  return results;
}
