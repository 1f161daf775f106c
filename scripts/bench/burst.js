#!/usr/bin/env node
// Runs only the burst workload (workloads/burst.js), against anvil and this node one after the
// other, each fresh at block time 1 s, and prints one line per figure; `npm run bench` runs the
// same suite as part of the whole benchmark. Results go to bench-results/burst.json.
//   node scripts/bench/burst.js [--transactions 4000] [--only anvil|node-cli]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { DEV_PRIVATE_KEYS } from '../../dist/daemon/chain/genesis.js';
import { startAnvil } from './processes/anvil.js';
import { startNodeCli } from './processes/node-cli.js';
import { burstTable } from './report/table.js';
import { nodeCliBurstFlags, runBurstSuite, signedBurst } from './workloads/burst.js';

const TIMEOUT_MS = 600_000;
const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '4000' },
    only: { type: 'string' },
    output: { type: 'string', default: 'bench-results/burst.json' },
  },
});
const transactions = Number(values.transactions);
if (!(transactions > 0)) throw new Error('--transactions must be a positive number');

const progress = (message) =>
  process.stderr.write(`[burst ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const signed = await signedBurst(DEV_PRIVATE_KEYS[0], transactions, dirname(values.output));
const starters = {
  anvil: () => startAnvil(1),
  'node-cli': () => startNodeCli('1s', nodeCliBurstFlags(transactions)),
};
const results = {};
for (const [name, start] of Object.entries(starters)) {
  if (values.only && values.only !== name) continue;
  results[name] = { burst: await runBurstSuite(start, signed, progress, TIMEOUT_MS) };
}
console.log(burstTable(results));
mkdirSync(dirname(values.output), { recursive: true });
writeFileSync(
  values.output,
  `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`,
);
