#!/usr/bin/env node
// Times short CLI calls against cast in one run (issue #16): `--version`, a usage error,
// `rpc eth_blockNumber` and `block get --json` of node-cli, `cast block-number` and `cast block`
// against the same daemon, and a bare `node -e 0` as the floor any Node CLI pays. The calls
// alternate round by round, so a busy machine slows every command alike. Each call is timed
// from spawn to exit (wall) and, through /usr/bin/time when present, by the CPU time it used,
// which a loaded machine disturbs much less than the wall clock. node-cli runs as the installed
// command does, `bin/run.js` as an executable (its sh launcher defers NODE_EXTRA_CA_CERTS); the
// floor is measured with the environment as it is and without NODE_EXTRA_CA_CERTS.
//
//   npm run build && node scripts/bench/cli-calls.js [--runs 20] [--compare <other>/bin/run.js]
//
// --compare adds the same node-cli calls through another build's executable (e.g. an older
// commit's bin/run.js).
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from './processes/free-port.js';
import { CLI_ENTRY, daemonStartArgs, freshDataDir, runCli } from './processes/node-cli.js';
import { median } from './statistics.js';

const CAST = fileURLToPath(new URL('../../node_modules/.bin/cast', import.meta.url));
const TIME = '/usr/bin/time';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20' }, compare: { type: 'string' } },
});
const runs = Number(values.runs);

/** Runs a command once; resolves with its exit code, wall milliseconds and CPU milliseconds. */
function timeCall([command, ...args], env) {
  const timed = existsSync(TIME);
  const argv = timed ? [TIME, '-f', '@cpu %U %S', command, ...args] : [command, ...args];
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const cpu = /@cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      const cpuMs = cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined;
      // /usr/bin/time reports a non-zero exit in a line of its own; the code is the child's.
      resolve({ code, wallMs, cpuMs });
    });
  });
}

const port = await freePort();
const dataDir = freshDataDir();
// cast refuses the spec's null proof-of-work fields; the compat form fills them in.
await runCli(daemonStartArgs(dataDir, port, '1s', ['--json-rpc.ethereum-compat']));
const url = `http://127.0.0.1:${port}`;
const node = [CLI_ENTRY];
const cases = [
  { name: 'node -e 0 (floor)', argv: [process.execPath, '-e', '0'], code: 0 },
  {
    name: 'node -e 0 without NODE_EXTRA_CA_CERTS',
    argv: [process.execPath, '-e', '0'],
    code: 0,
    env: { NODE_EXTRA_CA_CERTS: undefined },
  },
  { name: 'node-cli --version', argv: [...node, '--version'], code: 0 },
  { name: 'node-cli usage error', argv: [...node, 'block', 'get', '--bogus'], code: 2 },
  {
    name: 'node-cli rpc eth_blockNumber',
    argv: [...node, 'rpc', 'eth_blockNumber', '--datadir', dataDir],
    code: 0,
    reference: 'cast block-number',
  },
  {
    name: 'node-cli block get --json',
    argv: [...node, 'block', 'get', '--json', '--datadir', dataDir],
    code: 0,
    // Issue #16 sets both chain calls against `cast block-number`.
    reference: 'cast block-number',
  },
  { name: 'cast block-number', argv: [CAST, 'block-number', '--rpc-url', url], code: 0 },
  { name: 'cast block', argv: [CAST, 'block', '--json', '--rpc-url', url], code: 0 },
];
if (values.compare !== undefined) {
  for (const entry of cases.filter((candidate) => candidate.argv[0] === CLI_ENTRY)) {
    cases.push({
      ...entry,
      name: `${entry.name} (compared)`,
      argv: [values.compare, ...entry.argv.slice(1)],
    });
  }
}
const samples = new Map(cases.map((entry) => [entry.name, { wall: [], cpu: [] }]));
try {
  for (let round = 0; round < runs; round++) {
    for (const entry of cases) {
      const result = await timeCall(entry.argv, entry.env);
      if (result.code !== entry.code) {
        throw new Error(`${entry.name} exited ${result.code}, expected ${entry.code}`);
      }
      samples.get(entry.name).wall.push(result.wallMs);
      if (result.cpuMs !== undefined) samples.get(entry.name).cpu.push(result.cpuMs);
    }
  }
} finally {
  await runCli(['daemon', 'stop', '--datadir', dataDir]);
  rmSync(dataDir, { recursive: true, force: true });
}

const rows = cases.map((entry) => {
  const { wall, cpu } = samples.get(entry.name);
  const wallMs = median(wall);
  const cpuMs = cpu.length ? median(cpu) : undefined;
  const reference = entry.reference && samples.get(entry.reference);
  return {
    call: entry.name,
    'median wall ms': Math.round(wallMs),
    'median CPU ms': cpuMs === undefined ? '' : Math.round(cpuMs),
    'wall / cast block-number': reference ? (wallMs / median(reference.wall)).toFixed(2) : '',
  };
});
console.log(`median of ${runs} calls each, interleaved`);
console.table(rows);
