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
