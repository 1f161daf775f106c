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

  it('ends a string only at a quote after an even run of backslashes', () => {
    expect(exceedsJsonDepth(String.raw`["\\", [[1]]]`, 2)).toBe(true);
    expect(exceedsJsonDepth(String.raw`["\\\", [[1]]"]`, 2)).toBe(false);
    expect(exceedsJsonDepth(String.raw`["\\\\\\", [[1]]]`, 2)).toBe(true);
    expect(exceedsJsonDepth('["unterminated [[[[', 1)).toBe(false);
  });

  it('agrees with a character-by-character scan on random texts', () => {
    const reference = (text: string, limit: number) => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > limit) return true;
        } else if (c === ']' || c === '}') depth--;
      }
      return false;
    };
    const alphabet = '[]{}"\\\\a';
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 5_000; round++) {
      const length = Math.floor(random() * 40);
      let text = '';
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
      const limit = Math.floor(random() * 4);
      expect([text, limit, exceedsJsonDepth(text, limit)]).toEqual([
        text,
        limit,
        reference(text, limit),
      ]);
    }
  });
});
