// The benchmark's fixed parameters and the few that can be scaled from the command line.
import { parseArgs } from 'node:util';

/** Fee fields of every benchmark transaction: far above both nodes' base fee, so none waits. */
export const FEES = { maxFeePerGas: 200_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
export const CHAIN_ID = 9000n;
/** Where value and token transfers go: one fixed account outside the dev set. */
export const RECIPIENT = '0x000000000000000000000000000000000000bEEF';

/**
 * @typedef {object} BenchSettings
 * @property {number} connections keep-alive connections of each read load test
 * @property {number} loadWorkers processes the connections are spread over
 * @property {number} warmupMs unmeasured lead-in of each load test
 * @property {number} durationMs measured window of each load test
 * @property {number} readRounds runs of each read load test on each node, alternating between them
 * @property {number} valueTransfersPerSender
 * @property {number} tokenTransfersPerSender also the source of the eth_getLogs range (10 senders)
 * @property {number} logQueryRuns timed eth_getLogs calls (after one untimed)
 * @property {number} coldStartRuns
 * @property {boolean} burst10k also run the 10 000-transaction burst (opt-in: minutes more)
 * @property {number} soakMinutes length of the soak (workloads/soak.js); 0, the default, skips it
 * @property {string[]} nodes which nodes to run: 'anvil', 'node-cli'
 * @property {string} output path of the JSON results
 */

/** Reads the settings from `argv` (see `--help`). @returns {BenchSettings} */
export function readSettings(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '5' },
      'value-transfers': { type: 'string', default: '300' },
      'token-transfers': { type: 'string', default: '1000' },
      workers: { type: 'string', default: '2' },
      'read-rounds': { type: 'string', default: '2' },
      only: { type: 'string' },
      'burst-10k': { type: 'boolean', default: false },
      soak: { type: 'string', default: '0' },
      output: { type: 'string', default: 'bench-results/latest.json' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      'usage: node scripts/bench/run.js [--duration <s per load test>] [--value-transfers <per sender>]\n' +
        '       [--token-transfers <per sender>] [--workers <load processes>] [--read-rounds <n>]\n' +
        '       [--only anvil|node-cli] [--burst-10k] [--soak <minutes>]\n' +
        '       [--output <json path>]',
    );
    process.exit(0);
  }
  const positive = (name) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const nonNegative = (name) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < 0)
      throw new Error(`--${name} must be a number, 0 or more`);
    return value;
  };
  if (values.only !== undefined && !['anvil', 'node-cli'].includes(values.only))
    throw new Error('--only must be anvil or node-cli');
  return {
    connections: 32,
    loadWorkers: Math.round(positive('workers')),
    warmupMs: 1000,
    durationMs: Math.round(positive('duration') * 1000),
    readRounds: Math.round(positive('read-rounds')),
    valueTransfersPerSender: Math.round(positive('value-transfers')),
    tokenTransfersPerSender: Math.round(positive('token-transfers')),
    logQueryRuns: 7,
    coldStartRuns: 5,
    burst10k: values['burst-10k'],
    soakMinutes: nonNegative('soak'),
    nodes: values.only ? [values.only] : ['anvil', 'node-cli'],
    output: values.output,
  };
}
