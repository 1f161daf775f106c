#!/usr/bin/env node
// Runs only the soak (workloads/soak.js): a fresh node at block time 1 s under a steady mix of
// transfers and reads for --minutes, its resident memory sampled throughout. `npm run bench --
// --soak <minutes>` runs the same after the rest of the benchmark. Results, every sample
// included, go to bench-results/soak.json.
//   node scripts/bench/soak.js [--minutes 60] [--transfers 10] [--reads 100] [--node node-cli|anvil]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { DEV_PRIVATE_KEYS } from '../../dist/daemon/chain/genesis.js';
import { startAnvil } from './processes/anvil.js';
import { startNodeCli } from './processes/node-cli.js';
import { soakTable } from './report/table.js';
import { SOAK_DEFAULTS, runSoak } from './workloads/soak.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: String(SOAK_DEFAULTS.minutes) },
    transfers: { type: 'string', default: String(SOAK_DEFAULTS.transfersPerSecond) },
    reads: { type: 'string', default: String(SOAK_DEFAULTS.readsPerSecond) },
    node: { type: 'string', default: 'node-cli' },
    output: { type: 'string', default: 'bench-results/soak.json' },
  },
});
const positive = (name) => {
  const value = Number(values[name]);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
  return value;
};
const options = {
  ...SOAK_DEFAULTS,
  minutes: positive('minutes'),
  transfersPerSecond: positive('transfers'),
  readsPerSecond: positive('reads'),
};
const starters = {
  anvil: () => startAnvil(1),
  'node-cli': () => startNodeCli('1s'),
};
if (!(values.node in starters)) throw new Error('--node must be node-cli or anvil');

const progress = (message) =>
  process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const results = {
  [values.node]: {
    soak: await runSoak(starters[values.node], DEV_PRIVATE_KEYS, options, progress),
  },
};
console.log(soakTable(results));
mkdirSync(dirname(values.output), { recursive: true });
writeFileSync(
  values.output,
  `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`,
);
