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

/**
 * Resident memory of `pid` in MiB by mapping, from /proc/<pid>/smaps: each LMDB `data.mdb` by
 * its directory (`mdb:chain`), other files by name (`file:node`), glibc's main arena
 * (`[heap]`), and every other anonymous mapping together (`[anon]`: V8's heaps, the other
 * malloc arenas, WebAssembly memory, thread stacks). Largest first.
 * @param {number} pid @returns {Array<[string, number]>}
 */
export function residentByMapping(pid) {
  const parts = new Map();
  let name = '[anon]';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const path = mapping[1];
      if (path === '' || (path.startsWith('[') && path !== '[heap]')) name = '[anon]';
      else if (path.endsWith('/data.mdb')) name = `mdb:${path.split('/').at(-2)}`;
      else if (path.startsWith('/')) name = `file:${path.split('/').at(-1)}`;
      else name = path;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss) parts.set(name, (parts.get(name) ?? 0) + Number(rss[1]) / 1024);
  }
  return [...parts].sort((a, b) => b[1] - a[1]);
}
