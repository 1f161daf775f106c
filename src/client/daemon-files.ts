/** Reads what a running daemon leaves in its data directory: `daemon.json` and the token. */
import { readFileSync } from 'node:fs';
import { isDaemonInfo, type DaemonInfo } from '../shared/daemon-info.js';
import { dataDirLayout } from '../shared/datadir-layout.js';

/** The daemon's record, or undefined when there is none (never started, or stopped). */
export function readDaemonInfo(dataDir: string): DaemonInfo | undefined {
  let text: string;
  try {
    text = readFileSync(dataDirLayout(dataDir).daemonInfoFile, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isDaemonInfo(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function readAuthToken(dataDir: string): string | undefined {
  try {
    return readFileSync(dataDirLayout(dataDir).authTokenFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
