// Workload (a): requests per second at a fixed number of keep-alive connections for three reads
// of increasing cost: eth_blockNumber, eth_getBalance and an ERC-20 balanceOf through eth_call.
// The bodies rotate over the ten dev accounts so no single cache line decides the result; a
// fourth workload calls balanceOf for owners that never repeat, which no cache can answer.
import { runHttpLoad } from '../load/http-load.js';
import { balanceOfData } from '../chain/token-fixture.js';

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

/**
 * Runs each read workload once after checking that its first body gets a result (an error
 * answer would otherwise be measured as throughput); a workload that fails is recorded as
 * `{error}` and the next one still runs.
 * @param {import('../rpc.js').Rpc} rpc
 * @param {string} url
 * @param {Record<string, {bodies: object[], splitBodies?: boolean}>} workloads
 * @param {import('../settings.js').BenchSettings} settings
 * @param {number} serverPid the node under test, whose CPU use is reported
 */
export async function measureReads(rpc, url, workloads, settings, serverPid) {
  const results = {};
  for (const [name, { bodies, splitBodies }] of Object.entries(workloads)) {
    try {
      await rpc.call(bodies[0].method, bodies[0].params);
      results[name] = await runHttpLoad({
        url,
        bodies,
        splitBodies,
        connections: settings.connections,
        workers: settings.loadWorkers,
        warmupMs: settings.warmupMs,
        durationMs: settings.durationMs,
        serverPid,
      });
    } catch (error) {
      results[name] = { error: `${name}: ${error.message}` };
    }
  }
  return results;
}
