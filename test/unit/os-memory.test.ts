import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { loadOsMemory, OS_MEMORY_ADDON } from '../../src/daemon/os-memory.js';

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
    expect(debug).toEqual(['os-memory addon absent: freed malloc memory stays']);
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
});
