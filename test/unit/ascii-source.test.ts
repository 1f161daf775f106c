/** The bundles' text as the build writes it: pure ASCII, meaning what esbuild wrote. */
import { describe, expect, it } from '@jest/globals';

const { asciiSource } = (await import(
  new URL('../../scripts/ascii-source.js', import.meta.url).href
)) as { asciiSource(source: string): string };

describe('ascii source', () => {
  it('escapes what esbuild leaves past ASCII, keeping its meaning', () => {
    const source =
      'exports.micro = /^5(\u00b5s|\u03bcs|\\\u00e9)$/u; // y\u00b2 = x\u00b3 \u{1f600}';
    const escaped = asciiSource(source);
    expect(escaped).not.toMatch(/[\u0080-\uffff]/);
    const module = { exports: {} as { micro?: RegExp } };
    new Function('exports', escaped)(module.exports);
    const micro = module.exports.micro!;
    expect(['5\u00b5s', '5\u03bcs', '5\u00e9'].map((text) => micro.test(text))).toEqual([
      true,
      true,
      true,
    ]);
    expect(escaped).toContain('// y\\u00b2 = x\\u00b3 \\ud83d\\ude00');
  });
});
