import { describe, expect, it } from '@jest/globals';
import { exceedsJsonDepth } from '../../src/daemon/rpc/json-depth.js';

describe('exceedsJsonDepth', () => {
  it('counts arrays and objects, and not brackets inside strings', () => {
    expect(exceedsJsonDepth('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(exceedsJsonDepth('{"a":[{"b":[[1]]}]}', 4)).toBe(true);
    expect(exceedsJsonDepth('["[[[[[[", "\\"[[[[[[[", {"k{{{{": 1}]', 2)).toBe(false);
    expect(exceedsJsonDepth('[[[]],[[]],[[]]]', 3)).toBe(false);
  });

  it('stops at the limit without walking the rest of a deep document', () => {
    const deep = '['.repeat(2_600_000) + ']'.repeat(2_600_000);
    const started = process.hrtime.bigint();
    expect(exceedsJsonDepth(deep, 128)).toBe(true);
    expect(exceedsJsonDepth(`"${deep}"`, 128)).toBe(false);
    // A linear pass over 5 MB: milliseconds, where JSON.parse of it took seconds.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2000);
  });
});
