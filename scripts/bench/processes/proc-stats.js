// Reads a process's resource use from Linux /proc: resident memory and CPU time.
import { readFileSync, readdirSync } from 'node:fs';

/**
 * Resident memory of `pid` in MiB from /proc/<pid>/status: `total` is VmRSS, split into anonymous
 * memory (heaps), file-backed pages (mapped files such as an LMDB database, and code) and shared
 * memory.
 * @param {number} pid
 * @returns {{total: number, anonymous: number, file: number, shared: number}}
 */
export function residentMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
    if (!match) throw new Error(`no ${name} for pid ${pid}`);
    return Number(match[1]) / 1024;
  };
  return {
    total: field('VmRSS'),
    anonymous: field('RssAnon'),
    file: field('RssFile'),
    shared: field('RssShmem'),
  };
}

// Linux reports utime and stime in clock ticks; USER_HZ is 100 on every mainstream kernel.
const TICKS_PER_SECOND = 100;

/**
 * User plus system CPU seconds `pid` has used so far: all its threads, or with `thread` only
 * that one (a thread id; the main thread's is the pid). @param {number} pid @param {number} [thread]
 */
export function cpuSeconds(pid, thread) {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const stat = readFileSync(path, 'utf8');
  // The command name is parenthesised and may contain spaces; fields restart after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by each thread of `pid`, by thread id (the main thread's is the pid).
 * A thread that ends between listing and reading is left out.
 * @param {number} pid @returns {Record<string, number>}
 */
export function cpuSecondsByThread(pid) {
  const byThread = {};
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      byThread[thread] = cpuSeconds(pid, Number(thread));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byThread;
}
