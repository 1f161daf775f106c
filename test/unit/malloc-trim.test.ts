import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { loadMallocTrim, MALLOC_TRIM_ADDON } from '../../src/daemon/malloc-trim.js';

/** A logger that keeps the messages of its `debug` lines. */
function recordingLogger() {
  const debug: string[] = [];
  const record = (message: string) => debug.push(message);
  const ignore = () => undefined;
  return {
    debug,
    logger: { debug: record, info: ignore, warn: ignore, error: ignore, trace: ignore },
  };
}

describe('loadMallocTrim', () => {
  it('is absent, and says so at debug, when the addon was not built', () => {
    const { debug, logger } = recordingLogger();
    const missing = new URL('./no-such-addon.node', MALLOC_TRIM_ADDON);
    expect(loadMallocTrim(true, logger, missing)).toBeUndefined();
    expect(debug).toEqual(['malloc_trim addon absent: freed malloc memory stays with the process']);
  });

  it('is not loaded when turned off', () => {
    const { debug, logger } = recordingLogger();
    expect(loadMallocTrim(false, logger)).toBeUndefined();
    expect(debug).toEqual(['malloc_trim turned off (--no-malloc-trim)']);
  });

  // The addon is optional: on a machine that could not build it, only the cases above hold.
  const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
  const built = existsSync(MALLOC_TRIM_ADDON) && report.header.glibcVersionRuntime !== undefined;
  (built ? it : it.skip)('trims glibc malloc when the addon was built', () => {
    const trim = loadMallocTrim(true);
    expect(typeof trim).toBe('function');
    expect(typeof trim?.()).toBe('boolean');
  });
});
