/**
 * Starts, stops and inspects the daemon process of a data directory. Starting spawns the
 * daemon detached with its output in the log file and waits, through an IPC channel, until it
 * reports that its interfaces answer or why it could not start; a start that fails leaves no
 * process behind.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DaemonInfo } from '../shared/daemon-info.js';
import { DAEMON_ENVIRONMENT, daemonNodeFlags } from '../shared/daemon-runtime.js';
import { dataDirLayout } from '../shared/datadir-layout.js';
import { DaemonControlError } from './errors.js';
import { isProcessAlive, readDaemonInfo } from './daemon-files.js';
import { fetchBlockProduction, type BlockProduction } from './node-health.js';

const DAEMON_ENTRY = fileURLToPath(new URL('../daemon/main.js', import.meta.url));

export interface StartOptions {
  dataDir: string;
  /** Raw option values to pass on, by option key. */
  flags: Partial<Record<string, string>>;
  /** How long to wait for the daemon to report ready (ms). */
  readyTimeoutMs?: number;
}

type LaunchMessage = { type: 'ready'; info: DaemonInfo } | { type: 'failed'; message: string };

/**
 * The last lines the daemon wrote to its log since `offset` (the log's size when it was
 * started): lines of an earlier run would explain nothing about this one.
 */
function lastLogLines(logFile: string, offset: number, count: number): string {
  try {
    const text = readFileSync(logFile).subarray(offset).toString('utf8').trimEnd();
    return text === '' ? '(it wrote nothing)' : text.split('\n').slice(-count).join('\n');
  } catch {
    return '(it wrote nothing)';
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export async function startDaemon(options: StartOptions): Promise<DaemonInfo> {
  const layout = dataDirLayout(options.dataDir);
  const running = readDaemonInfo(layout.root);
  if (running && isProcessAlive(running.pid)) {
    throw new DaemonControlError(
      `a daemon is already running for ${layout.root} (pid ${running.pid})`,
    );
  }
  try {
    mkdirSync(dirname(layout.logFile), { recursive: true });
  } catch (error) {
    throw new DaemonControlError(
      `cannot create data directory ${layout.root}: ${(error as Error).message}`,
    );
  }
  const logFd = openSync(layout.logFile, 'a', 0o600);
  const logOffset = fileSize(layout.logFile);
  const args = [
    ...daemonNodeFlags(process.env.NODE_OPTIONS),
    DAEMON_ENTRY,
    `--datadir=${layout.root}`,
    ...Object.entries(options.flags)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `--${key}=${value}`),
  ];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', logFd, logFd, 'ipc'],
    env: { ...DAEMON_ENVIRONMENT, ...process.env },
  });
  closeSync(logFd);

  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const outcome = await new Promise<
    | LaunchMessage
    | { type: 'exited'; code: number | null; signal: NodeJS.Signals | null }
    | { type: 'timeout' }
  >((resolve) => {
    const timer = setTimeout(() => resolve({ type: 'timeout' }), timeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as LaunchMessage);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ type: 'exited', code, signal });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ type: 'failed', message: error.message });
    });
  });

  switch (outcome.type) {
    case 'ready':
      child.disconnect();
      child.unref();
      return outcome.info;
    case 'failed':
      await waitForExit(child.pid, 5_000);
      throw new DaemonControlError(`daemon failed to start: ${outcome.message}`);
    case 'exited': {
      // A signal here is most often SIGBUS or SIGSEGV from a damaged store file.
      const how =
        outcome.signal === null
          ? `exited during start-up (code ${outcome.code})`
          : `was killed by ${outcome.signal} during start-up (a damaged file in ${layout.root}? ` +
            `node-cli daemon check --datadir ${layout.root})`;
      throw new DaemonControlError(
        `daemon ${how}; its log lines:\n${lastLogLines(layout.logFile, logOffset, 10)}`,
      );
    }
    case 'timeout':
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      throw new DaemonControlError(
        `daemon did not become ready within ${timeoutMs} ms and was killed; see ${layout.logFile}`,
      );
  }
}

/** Polls until the process is gone or the deadline passes; resolves to whether it is gone. */
async function waitForExit(pid: number | undefined, timeoutMs: number): Promise<boolean> {
  if (pid === undefined) return true;
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

export interface StopResult {
  pid: number;
  /** `graceful` when SIGTERM sufficed, `forced` when SIGKILL was needed. */
  how: 'graceful' | 'forced';
}

/**
 * Stops the daemon: SIGTERM (it finishes the block in flight, flushes and closes), then SIGKILL
 * if it is still alive after `graceTimeoutMs`. Resolves to undefined when none was running.
 */
export async function stopDaemon(
  dataDir: string,
  graceTimeoutMs = 15_000,
): Promise<StopResult | undefined> {
  const info = readDaemonInfo(dataDir);
  const pid = info?.pid ?? readLockOwner(dataDir);
  if (pid === undefined || !isProcessAlive(pid)) return undefined;
  process.kill(pid, 'SIGTERM');
  if (await waitForExit(pid, graceTimeoutMs)) return { pid, how: 'graceful' };
  process.kill(pid, 'SIGKILL');
  if (await waitForExit(pid, 5_000)) return { pid, how: 'forced' };
  throw new DaemonControlError(`daemon (pid ${pid}) did not exit after SIGKILL`);
}

function readLockOwner(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(dataDirLayout(dataDir).lockFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export type DaemonStatus =
  | {
      running: true;
      pid: number;
      uptimeSeconds: number;
      version: string;
      endpoints: DaemonInfo['endpoints'];
      dataDir: string;
      /** Whether it produces blocks, and why not; absent when it did not say. */
      blockProduction?: BlockProduction;
    }
  | { running: false; dataDir: string };

export async function daemonStatus(dataDir: string): Promise<DaemonStatus> {
  const layout = dataDirLayout(dataDir);
  const info = readDaemonInfo(layout.root);
  if (!info || !isProcessAlive(info.pid)) return { running: false, dataDir: layout.root };
  return {
    running: true,
    pid: info.pid,
    uptimeSeconds: Math.max(0, Math.round((Date.now() - Date.parse(info.startedAt)) / 1000)),
    version: info.version,
    endpoints: info.endpoints,
    dataDir: layout.root,
    blockProduction:
      info.endpoints.consensusWs === undefined
        ? undefined
        : await fetchBlockProduction(info.endpoints.consensusWs),
  };
}
