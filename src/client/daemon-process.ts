/**
 * Starts, stops and inspects the daemon process of a data directory. Starting spawns the
 * daemon detached with its output in the log file and waits, through an IPC channel, until it
 * reports that its interfaces answer or why it could not start; a start that fails leaves no
 * process behind.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DaemonInfo } from '../shared/daemon-info.js';
import { DAEMON_ENVIRONMENT, daemonNodeFlags } from '../shared/daemon-runtime.js';
import { dataDirLayout, type DataDirLayout } from '../shared/datadir-layout.js';
import { renderLogLine } from '../shared/log-line.js';
import { makeDirectories } from '../shared/make-directories.js';
import { isDataDirLocked, readLockHolder } from '../shared/datadir-lock.js';
import { isSameLiveProcess, type ProcessIdentity } from '../shared/process-identity.js';
import type { Readiness } from '../shared/readiness.js';
import { DaemonControlError } from './errors.js';
import { readDaemonInfo } from './daemon-files.js';
import { childEnvironment } from './tls-trust.js';
import { fetchBlockProduction, fetchReadiness, type BlockProduction } from './node-health.js';

const DAEMON_ENTRY = fileURLToPath(new URL('../daemon/main.cjs', import.meta.url));

export interface StartOptions {
  dataDir: string;
  /** Raw option values to pass on, by option key. */
  flags: Partial<Record<string, string>>;
  /** How long to wait for the daemon to report ready (ms). */
  readyTimeoutMs?: number;
}

type LaunchMessage = { type: 'ready'; info: DaemonInfo } | { type: 'failed'; message: string };

/**
 * The last lines the daemon wrote since it was started (`offsets`: the sizes of its log and of
 * its stderr file then), log lines rendered for people: lines of an earlier run would explain
 * nothing about this one.
 */
function lastOutputLines(
  layout: DataDirLayout,
  offsets: { log: number; stderr: number },
  count: number,
): string {
  const since = (file: string, offset: number) => {
    try {
      return readFileSync(file).subarray(offset).toString('utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const lines = [
    ...since(layout.logFile, offsets.log).map(renderLogLine),
    ...since(layout.stderrFile, offsets.stderr),
  ];
  return lines.length === 0 ? '(it wrote nothing)' : lines.slice(-count).join('\n');
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * What holds a data directory, decided by its lock rather than by the pid in `daemon.json`:
 * only a live daemon holds the lock, so a record without a held lock is stale, and a pid is
 * signalled only while the lock is held and the process's start time is the recorded one.
 */
export type DaemonPresence =
  /** A daemon holds the lock and its record is current. */
  | { state: 'running'; info: DaemonInfo }
  /** A daemon holds the lock but has written no record yet (it is starting). */
  | { state: 'starting'; holder: ProcessIdentity | undefined }
  /** No daemon; a record left by one that was killed was removed. */
  | { state: 'stale'; info: DaemonInfo }
  | { state: 'stopped' };

export function locateDaemon(dataDir: string): DaemonPresence {
  const layout = dataDirLayout(dataDir);
  const info = readDaemonInfo(layout.root);
  if (!isDataDirLocked(layout.lockFile)) {
    if (!info) return { state: 'stopped' };
    rmSync(layout.daemonInfoFile, { force: true });
    return { state: 'stale', info };
  }
  if (info && info.dataDir === layout.root && isSameLiveProcess(identityOf(info))) {
    return { state: 'running', info };
  }
  const holder = readLockHolder(layout.lockFile);
  return { state: 'starting', holder: holder && isSameLiveProcess(holder) ? holder : undefined };
}

function identityOf(info: DaemonInfo): ProcessIdentity {
  return { pid: info.pid, startTime: info.processStartTime };
}

export async function startDaemon(options: StartOptions): Promise<DaemonInfo> {
  const layout = dataDirLayout(options.dataDir);
  const presence = locateDaemon(layout.root);
  if (presence.state === 'running' || presence.state === 'starting') {
    const pid = presence.state === 'running' ? presence.info.pid : presence.holder?.pid;
    throw new DaemonControlError(
      `a daemon is already running for ${layout.root}${pid ? ` (pid ${pid})` : ''}`,
    );
  }
  try {
    makeDirectories(dirname(layout.logFile));
  } catch (error) {
    throw new DaemonControlError(
      `cannot create data directory ${layout.root}: ${(error as Error).message}`,
    );
  }
  const outputFd = openSync(layout.stderrFile, 'a', 0o600);
  const offsets = { log: fileSize(layout.logFile), stderr: fileSize(layout.stderrFile) };
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
    stdio: ['ignore', outputFd, outputFd, 'ipc'],
    env: { ...DAEMON_ENVIRONMENT, ...childEnvironment() },
  });
  closeSync(outputFd);

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
        `daemon ${how}; its last lines:\n${lastOutputLines(layout, offsets, 10)}`,
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
async function waitForExit(
  target: ProcessIdentity | number | undefined,
  timeoutMs: number,
): Promise<boolean> {
  if (target === undefined) return true;
  const identity = typeof target === 'number' ? { pid: target } : target;
  const deadline = Date.now() + timeoutMs;
  while (isSameLiveProcess(identity)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

export type StopResult =
  /** `graceful` when SIGTERM sufficed, `forced` when SIGKILL was needed. */
  | { stopped: true; pid: number; how: 'graceful' | 'forced' }
  /** Nothing was running; `stalePid` names the dead daemon whose leftover record was removed. */
  | { stopped: false; stalePid?: number };

/**
 * Stops the daemon: SIGTERM (it finishes the block in flight, flushes and closes), then SIGKILL
 * if it is still alive after `graceTimeoutMs`. Only a process that holds the data directory's
 * lock, with the start time on record, is ever signalled.
 */
export async function stopDaemon(dataDir: string, graceTimeoutMs = 15_000): Promise<StopResult> {
  const presence = locateDaemon(dataDir);
  if (presence.state === 'stopped') return { stopped: false };
  if (presence.state === 'stale') return { stopped: false, stalePid: presence.info.pid };
  const target = presence.state === 'running' ? identityOf(presence.info) : presence.holder;
  if (target === undefined) {
    throw new DaemonControlError(
      `the lock of ${dataDirLayout(dataDir).lockFile} is held by a process that cannot be identified; not signalling anything`,
    );
  }
  signalIfSame(target, 'SIGTERM');
  if (await waitForExit(target, graceTimeoutMs)) {
    return { stopped: true, pid: target.pid, how: 'graceful' };
  }
  signalIfSame(target, 'SIGKILL');
  if (await waitForExit(target, 5_000)) return { stopped: true, pid: target.pid, how: 'forced' };
  throw new DaemonControlError(`daemon (pid ${target.pid}) did not exit after SIGKILL`);
}

function signalIfSame(target: ProcessIdentity, signal: NodeJS.Signals): void {
  if (isSameLiveProcess(target)) process.kill(target.pid, signal);
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
      /** Its readiness checks (`GET /ready`); absent when it did not answer them. */
      readiness?: Readiness;
    }
  | {
      running: false;
      dataDir: string;
      /** A daemon holds the lock but is still starting (pid when known). */
      starting?: { pid?: number };
      /** The pid of a dead daemon whose leftover `daemon.json` was removed. */
      stalePid?: number;
    };

export async function daemonStatus(dataDir: string): Promise<DaemonStatus> {
  const layout = dataDirLayout(dataDir);
  const presence = locateDaemon(layout.root);
  if (presence.state === 'stopped') return { running: false, dataDir: layout.root };
  if (presence.state === 'stale') {
    return { running: false, dataDir: layout.root, stalePid: presence.info.pid };
  }
  if (presence.state === 'starting') {
    return { running: false, dataDir: layout.root, starting: { pid: presence.holder?.pid } };
  }
  const info = presence.info;
  const { consensusWs } = info.endpoints;
  const probeUrl = info.endpoints.http ?? info.endpoints.metrics;
  const [blockProduction, readiness] = await Promise.all([
    consensusWs === undefined ? undefined : fetchBlockProduction(consensusWs),
    probeUrl === undefined ? undefined : fetchReadiness(probeUrl),
  ]);
  return {
    running: true,
    pid: info.pid,
    uptimeSeconds: Math.max(0, Math.round((Date.now() - Date.parse(info.startedAt)) / 1000)),
    version: info.version,
    endpoints: info.endpoints,
    dataDir: layout.root,
    blockProduction,
    readiness,
  };
}
