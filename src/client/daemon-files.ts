/** Reads what a running daemon leaves in its data directory: `daemon.json` and the token. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDaemonInfo, type DaemonInfo } from '../shared/daemon-info.js';
import { dataDirLayout } from '../shared/datadir-layout.js';
import { isSameLiveProcess } from '../shared/process-identity.js';

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

/**
 * The record of the daemon that is running now, or undefined. A record whose pid is dead, or
 * now belongs to another process (a later start time), is a leftover of a killed daemon.
 */
export function readLiveDaemonInfo(dataDir: string): DaemonInfo | undefined {
  const info = readDaemonInfo(dataDir);
  if (!info) return undefined;
  return isSameLiveProcess({ pid: info.pid, startTime: info.processStartTime }) ? info : undefined;
}

export function readAuthToken(dataDir: string): string | undefined {
  try {
    return readFileSync(dataDirLayout(dataDir).authTokenFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The key file of `address` in the data directory's keystore (geth's name
 * `UTC--<time>--<address>`), or undefined when it is not there.
 */
export function findKeyFile(dataDir: string, address: string): string | undefined {
  const { keystoreDir } = dataDirLayout(dataDir);
  const suffix = `--${address.replace(/^0x/i, '').toLowerCase()}`;
  try {
    const name = readdirSync(keystoreDir).find((entry) => entry.toLowerCase().endsWith(suffix));
    return name === undefined ? undefined : join(keystoreDir, name);
  } catch {
    return undefined;
  }
}
