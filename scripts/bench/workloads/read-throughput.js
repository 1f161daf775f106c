// Workload (a): requests per second at a fixed number of keep-alive connections for three reads
// of increasing cost: eth_blockNumber, eth_getBalance and an ERC-20 balanceOf through eth_call.
// The bodies rotate over the ten dev accounts so no single cache line decides the result.
import { runHttpLoad } from '../load/http-load.js';
import { balanceOfData } from '../chain/token-fixture.js';

/** @param {string} method @param {unknown[]} params */
const body = (method, params) => ({ jsonrpc: '2.0', id: 1, method, params });

/** The JSON-RPC bodies of each read workload, by name. */
export function readWorkloads(addresses, token) {
  return {
    eth_blockNumber: [body('eth_blockNumber', [])],
    eth_getBalance: addresses.map((address) => body('eth_getBalance', [address, 'latest'])),
    eth_call: addresses.map((address) =>
      body('eth_call', [{ to: token, data: balanceOfData(address) }, 'latest']),
    ),
  };
}

/**
 * Runs each read workload once after checking that its first body gets a result (an error
 * answer would otherwise be measured as throughput); a workload that fails is recorded as
 * `{error}` and the next one still runs.
 * @param {import('../rpc.js').Rpc} rpc
 * @param {string} url
 * @param {Record<string, object[]>} workloads
 * @param {import('../settings.js').BenchSettings} settings
 * @param {number} serverPid the node under test, whose CPU use is reported
 */
export async function measureReads(rpc, url, workloads, settings, serverPid) {
  const results = {};
  for (const [name, bodies] of Object.entries(workloads)) {
    try {
      await rpc.call(bodies[0].method, bodies[0].params);
      results[name] = await runHttpLoad({
        url,
        bodies,
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
