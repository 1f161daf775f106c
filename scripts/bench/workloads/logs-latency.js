// Workload (c): latency of eth_getLogs over the range the token transfers filled (one Transfer
// log per transfer), filtered by the token's address and the Transfer topic. One untimed call
// warms caches; the median of the timed calls is reported.
import { performance } from 'node:perf_hooks';
import { TRANSFER_TOPIC } from '../chain/token-fixture.js';

/**
 * @param {import('../rpc.js').Rpc} rpc
 * @param {string} token
 * @param {{firstBlock: number, lastBlock: number}} range
 * @param {number} runs
 */
export async function measureLogs(rpc, token, range, runs) {
  if (typeof range?.firstBlock !== 'number')
    throw new Error('no block range: the ERC-20 transfers were not committed');
  const filter = {
    address: token,
    topics: [TRANSFER_TOPIC],
    fromBlock: `0x${range.firstBlock.toString(16)}`,
    toBlock: `0x${range.lastBlock.toString(16)}`,
  };
  const logs = await rpc.call('eth_getLogs', [filter]);
  const timings = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const answer = await rpc.call('eth_getLogs', [filter]);
    timings.push(performance.now() - started);
    if (answer.length !== logs.length)
      throw new Error(`eth_getLogs returned ${answer.length} logs, then ${logs.length}`);
  }
  timings.sort((a, b) => a - b);
  return {
    logs: logs.length,
    blocks: range.lastBlock - range.firstBlock + 1,
    medianMs: timings[Math.floor(timings.length / 2)],
    minMs: timings[0],
    maxMs: timings.at(-1),
  };
}
