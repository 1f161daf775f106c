import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { LMDB_DATA_FILE, loadOsMemory, OS_MEMORY_ADDON } from '../../src/daemon/os-memory.js';

/** A logger that keeps the messages of its `debug` lines. */
function recordingLogger() {
  const debug: string[] = [];
  const record = (message: string) => debug.push(message);
  const ignore = () => undefined;
  return { debug, logger: { debug: record, info: ignore, warn: ignore, error: ignore } };
}

const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
// The addon is optional: on a machine that could not build it, only the first two cases hold.
const built = existsSync(OS_MEMORY_ADDON) && process.platform === 'linux';

describe('loadOsMemory', () => {
  it('is absent, and says so at debug, when the addon was not built', () => {
    const { debug, logger } = recordingLogger();
    const missing = new URL('./no-such-addon.node', OS_MEMORY_ADDON);
    expect(loadOsMemory(true, logger, missing)).toBeUndefined();
    expect(debug).toEqual(['os-memory addon absent: freed malloc memory and mapped pages stay']);
  });

  it('is not loaded when turned off', () => {
    const { debug, logger } = recordingLogger();
    expect(loadOsMemory(false, logger)).toBeUndefined();
    expect(debug).toEqual(['os-memory release turned off (--no-os-memory-release)']);
  });

  (built && report.header.glibcVersionRuntime !== undefined ? it : it.skip)(
    'trims glibc malloc when the addon was built',
    () => {
      expect(typeof loadOsMemory(true)?.trimMalloc?.()).toBe('boolean');
    },
  );

  (built ? it : it.skip)(
    'drops the pages of a mapped LMDB file, which read the same after',
    async () => {
      const os = loadOsMemory(true);
      const dir = mkdtempSync(join(tmpdir(), 'node-cli-os-memory-'));
      const db = open({ path: dir, encoding: 'binary' });
      try {
        const value = Buffer.alloc(64 * 1024, 7);
        await db.transaction(() => {
          for (let key = 0; key < 64; key += 1) db.put(key, value);
        });
        const readAll = () => {
          for (let key = 0; key < 64; key += 1) {
            expect(value.equals(db.getBinary(key) ?? Buffer.alloc(0))).toBe(true);
          }
        };
        readAll();
        expect(residentKiB(dir)).toBeGreaterThan(1024);
        expect(os?.dropSharedFilePages?.(LMDB_DATA_FILE)).toBeGreaterThanOrEqual(1);
        expect(residentKiB(dir)).toBeLessThan(64);
        readAll();
        // Private mappings are never touched: the addon's own file stays mapped and resident.
        expect(os?.dropSharedFilePages?.('/os_memory.node')).toBe(0);
        expect(() => os?.dropSharedFilePages?.('')).toThrow(/needs the end of a file path/);
      } finally {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

/** Resident KiB of this process's mappings of `<dir>/data.mdb` (/proc/self/smaps). */
function residentKiB(dir: string): number {
  let inFile = false;
  let kib = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) inFile = mapping[1] === join(dir, 'data.mdb');
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (inFile && rss) kib += Number(rss[1]);
  }
  return kib;
}
