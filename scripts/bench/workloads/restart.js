// Workload (e): restart and stop of a daemon whose data directory already holds history, as an
// operator does them: `node-cli daemon start` (background) timed to the first eth_blockNumber
// answer, and `node-cli daemon stop` timed, together with how long the process outlives its
// "stopped" log line. The data directory (10 000 blocks) is made once and kept beside the
// results, so later runs reuse it.
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { freePort } from '../processes/free-port.js';
import { CLI_ENTRY, daemonStartArgs, freshDataDir, runCli } from '../processes/node-cli.js';
import { waitForBlockNumber } from '../processes/wait-for-rpc.js';
import { connectRpc } from '../rpc.js';
import { median } from '../statistics.js';

export const HISTORY_BLOCKS = 10_000;
const FILL_BLOCK_TIME = '2ms';
const FILL_TIMEOUT_MS = 15 * 60_000;

/** A copy of the chain with at least HISTORY_BLOCKS blocks under `cacheDir`, made if missing. */
async function historyDataDir(cacheDir, progress) {
  const dataDir = join(cacheDir, `datadir-${HISTORY_BLOCKS}-blocks`);
  if (existsSync(join(dataDir, 'chain'))) return dataDir;
  const building = freshDataDir();
  const port = await freePort();
  progress(`making a data directory with ${HISTORY_BLOCKS} blocks (kept in ${dataDir})`);
  await runCli(daemonStartArgs(building, port, FILL_BLOCK_TIME));
  const rpc = connectRpc(`http://127.0.0.1:${port}`);
  try {
    const deadline = Date.now() + FILL_TIMEOUT_MS;
    while (Number(await rpc.call('eth_blockNumber', [])) < HISTORY_BLOCKS) {
      if (Date.now() > deadline) throw new Error(`no ${HISTORY_BLOCKS} blocks in time`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await rpc.close();
    await runCli(['daemon', 'stop', '--datadir', building]);
  }
  renameSync(building, dataDir);
  return dataDir;
}

/** True while `pid` is a process that has not exited (a zombie has: it only awaits reaping). */
function running(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Resolves with performance.now() when `logFile` first has a line containing `needle`. */
async function logLineAt(logFile, offset, needle) {
  for (;;) {
    const text = readFileSync(logFile, 'utf8').slice(offset);
    if (text.includes(needle)) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function oneRestart(dataDir) {
  const port = await freePort();
  const started = performance.now();
  const starting = runCli(daemonStartArgs(dataDir, port, '1s'));
  const answered = await waitForBlockNumber(`http://127.0.0.1:${port}`, 60_000);
  const { pid } = JSON.parse(await starting);
  const commandDone = performance.now();

  const logFile = join(dataDir, 'logs', 'daemon.log');
  const logOffset = readFileSync(logFile, 'utf8').length;
  const stopStarted = performance.now();
  const stopping = new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_ENTRY, 'daemon', 'stop', '--datadir', dataDir], {
      stdio: 'ignore',
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now()) : reject(new Error(`daemon stop exited ${code}`)),
    );
  });
  const stoppedLine = await logLineAt(logFile, logOffset, '"msg":"stopped"');
  while (running(pid)) await new Promise((resolve) => setTimeout(resolve, 1));
  const gone = performance.now();
  const stopDone = await stopping;
  return {
    firstAnswerMs: answered - started,
    startCommandMs: commandDone - started,
    goneAfterStoppedMs: gone - stoppedLine,
    stopCommandMs: stopDone - stopStarted,
  };
}

/** Medians of `runs` restarts after one untimed one. @param {number} runs */
export async function measureRestarts(runs, cacheDir, progress) {
  const dataDir = await historyDataDir(cacheDir, progress);
  await oneRestart(dataDir);
  const samples = [];
  for (let run = 0; run < runs; run += 1) samples.push(await oneRestart(dataDir));
  const medianOf = (key) => median(samples.map((sample) => sample[key]));
  return {
    blocks: HISTORY_BLOCKS,
    firstAnswerMs: medianOf('firstAnswerMs'),
    startCommandMs: medianOf('startCommandMs'),
    goneAfterStoppedMs: medianOf('goneAfterStoppedMs'),
    stopCommandMs: medianOf('stopCommandMs'),
    samples,
  };
}
