/**
 * Who a process is, beyond its pid: pids are reused, so a pid read from a file proves nothing
 * once its process has died. On Linux the kernel's start time of the process
 * (`/proc/<pid>/stat`, field 22, in clock ticks since boot) tells a reused pid apart; elsewhere
 * only liveness can be checked, and the data-directory lock does the rest.
 */
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** Kernel start time of the process, where the platform exposes it. */
  startTime?: string;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface ProcStat {
  /** One letter: R running, S sleeping, … Z zombie (exited, not yet reaped), X dead. */
  state: string;
  startTime: string;
}

/** State and start time from `/proc/<pid>/stat`, or undefined where there is no such file. */
function readProcStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // `fields` starts at field 3 (state); the start time is field 22.
  const [state, startTime] = [fields[0], fields[22 - 3]];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { state, startTime };
}

/** The start time of a live process, or undefined where `/proc` does not say. */
export function processStartTime(pid: number): string | undefined {
  return readProcStat(pid)?.startTime;
}

export function currentProcessIdentity(): ProcessIdentity {
  return { pid: process.pid, startTime: processStartTime(process.pid) };
}

/**
 * True when `identity` names a process that is alive now and is the same process that was
 * recorded: a recorded start time must match the live one. A process that has exited but not
 * yet been reaped (a zombie, which a container's init may leave for seconds) counts as gone.
 */
export function isSameLiveProcess(identity: ProcessIdentity): boolean {
  if (!Number.isInteger(identity.pid) || identity.pid <= 0 || !isProcessAlive(identity.pid)) {
    return false;
  }
  const stat = readProcStat(identity.pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return identity.startTime === undefined || stat.startTime === identity.startTime;
}
