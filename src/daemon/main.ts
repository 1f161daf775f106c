/**
 * Entry point of the background daemon process started by `node-cli daemon start`.
 * Arguments are `--datadir=<dir>` and `--<option>=<value>` pairs; the parent is told through
 * the IPC channel when the node is ready or why it could not start.
 *
 * `daemon start` runs it as `dist/daemon/main.cjs`, the build's CommonJS copy of it and of the
 * few modules it imports (scripts/bundle-daemon.js): a process whose entry is an ES module starts
 * Node's ES module loader first, 30-40 ms of a start on a slow machine (docs/benchmarks.md).
 * `node dist/daemon/main.js` runs the same code.
 */
import { parseArgs } from 'node:util';
import { InvalidInputError } from '../shared/errors.js';
import { loadDaemonBundle } from './daemon-bundle.js';

export type LaunchMessage = { type: 'ready'; info: unknown } | { type: 'failed'; message: string };

function report(message: LaunchMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });
}

/** The data directory and the options, refused (so reported like any start failure) when malformed. */
function launchArguments(): { dataDir: string; flags: Record<string, string | boolean> } {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: false,
    allowPositionals: false,
  });
  const { datadir, ...flags } = values as Record<string, string | boolean>;
  // Without it the node would make its data directory in a directory named "undefined".
  if (typeof datadir !== 'string' || datadir === '') {
    throw new InvalidInputError('--datadir=<dir> is required');
  }
  return { dataDir: datadir, flags };
}

async function main(): Promise<void> {
  try {
    const { dataDir, flags } = launchArguments();
    const { exports, codeCache } = loadDaemonBundle();
    await exports.runDaemon({
      dataDir,
      flags: Object.fromEntries(Object.entries(flags).map(([key, value]) => [key, String(value)])),
      env: process.env,
      logToFile: true,
      codeCache,
      onReady: (info) => void report({ type: 'ready', info }),
    });
    process.exit(0);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${new Date().toISOString()} ERROR daemon failed to start: ${message}\n`);
    await report({ type: 'failed', message });
    process.exit(1);
  }
}

void main();
