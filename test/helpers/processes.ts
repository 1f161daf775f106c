import { isSameLiveProcess } from '../../src/shared/process-identity.js';
import { readFileSync, readdirSync } from 'node:fs';

/** Pids of live processes whose command line mentions `needle` (Linux /proc). */
export function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(needle) && Number(entry) !== process.pid) pids.push(Number(entry));
    } catch {
      continue;
    }
  }
  return pids;
}

/** True while `pid` has not exited; a zombie (exited, awaiting its reaper) counts as gone. */
export function isAlive(pid: number): boolean {
  return isSameLiveProcess({ pid });
}

/** Polls `condition` until it holds or the deadline passes. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What `pending` resolves to, or `timedOut` once `ms` have passed without it. */
export function within<T, S>(pending: Promise<T>, ms: number, timedOut: S): Promise<T | S> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<S>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), ms);
  });
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Each thread of `pid` with its name, scheduler state (R running, S sleeping, D in the disk) and
 * CPU time, twice `gapMs` apart: a thread that spins gains CPU time, one that waits does not.
 * For reporting a process that stopped answering.
 */
export async function threadStates(pid: number, gapMs = 1_000): Promise<string> {
  const sample = () => {
    const threads = new Map<string, { name: string; state: string; cpuTicks: number }>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        threads.set(tid, {
          name,
          state: fields[0],
          cpuTicks: Number(fields[11]) + Number(fields[12]),
        });
      } catch {
        continue;
      }
    }
    return threads;
  };
  const before = sample();
  await new Promise((resolve) => setTimeout(resolve, gapMs));
  return [...sample()]
    .map(([tid, { name, state, cpuTicks }]) => {
      const gained = cpuTicks - (before.get(tid)?.cpuTicks ?? cpuTicks);
      return `${tid} ${name} ${state} +${gained} ticks`;
    })
    .join('; ');
}
