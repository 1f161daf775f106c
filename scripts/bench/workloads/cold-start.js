// Workload (d): time from spawning a node process to its first eth_blockNumber answer, the median
// of several starts. For this node three ways are timed: the operator's command
// `node-cli daemon start --foreground` on a fresh data directory and on one that already holds
// the chain, and the daemon entry (dist/daemon/main.js) alone, which leaves out the CLI framework.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ANVIL_BINARY, anvilArguments } from '../processes/anvil.js';
import { freePort } from '../processes/free-port.js';
import { CLI_ENTRY, freshDataDir, loopbackFlags } from '../processes/node-cli.js';
import { waitForBlockNumber } from '../processes/wait-for-rpc.js';

const DAEMON_ENTRY = fileURLToPath(new URL('../../../dist/daemon/main.js', import.meta.url));
const START_TIMEOUT_MS = 30_000;

/** Spawns `command`, times its first answer on `port`, then stops it with SIGTERM. */
async function timeOneStart(command, args, port) {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  let gone = false;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  exited.then(() => (gone = true));
  try {
    const answered = await waitForBlockNumber(
      `http://127.0.0.1:${port}`,
      START_TIMEOUT_MS,
      () => gone,
    );
    return answered - started;
  } finally {
    if (!gone) child.kill('SIGTERM');
    await exited;
  }
}

/**
 * Median and all samples of `runs` starts made by `start`, after one untimed start that warms the
 * page cache (and fills a reused data directory).
 */
async function sample(runs, start) {
  await start();
  const samples = [];
  for (let run = 0; run < runs; run += 1) samples.push(await start());
  const sorted = [...samples].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)], samplesMs: samples };
}

/** Cold starts of anvil. @param {number} runs */
export async function measureAnvilStart(runs) {
  return {
    anvil: await sample(runs, async () => {
      const port = await freePort();
      return timeOneStart(ANVIL_BINARY, anvilArguments(port, 1), port);
    }),
  };
}

/** Cold starts of this node, three ways (see the file header). @param {number} runs */
export async function measureNodeCliStart(runs) {
  const cliArgs = (dataDir, port) => [
    CLI_ENTRY,
    'daemon',
    'start',
    '--foreground',
    '--datadir',
    dataDir,
    ...loopbackFlags(port),
    '--block-time',
    '1s',
  ];
  const entryArgs = (dataDir, port) => [
    DAEMON_ENTRY,
    `--datadir=${dataDir}`,
    ...loopbackFlags(port)
      .reduce(
        (pairs, value, index, all) => (index % 2 ? pairs : [...pairs, [value, all[index + 1]]]),
        [],
      )
      .map(([flag, value]) => `${flag}=${value}`),
    '--block-time=1s',
  ];
  const fresh = (argsFor) => async () => {
    const dataDir = freshDataDir();
    try {
      const port = await freePort();
      return await timeOneStart(process.execPath, argsFor(dataDir, port), port);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  const reusedDir = freshDataDir();
  try {
    return {
      cliFreshDataDir: await sample(runs, fresh(cliArgs)),
      cliExistingDataDir: await sample(runs, async () => {
        const port = await freePort();
        return timeOneStart(process.execPath, cliArgs(reusedDir, port), port);
      }),
      daemonEntryFreshDataDir: await sample(runs, fresh(entryArgs)),
    };
  } finally {
    rmSync(reusedDir, { recursive: true, force: true });
  }
}
