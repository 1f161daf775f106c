/**
 * compileBundle: a bundle compiles and runs whether its code cache is there, taken, or refused
 * (damaged, or made for another build of the same length, which V8 alone would take and run),
 * and says which. Each case compiles a file of its own: V8 answers a source it compiled before
 * in the same process from memory, without the cache.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeCacheBytes, compileBundle, withBundleId } from '../../src/shared/bundle-script.js';

const dir = mkdtempSync(join(tmpdir(), 'node-cli-bundle-script-'));

/** A bundle file answering `factor * 6`, written under `name`. */
function bundleFile(name: string, factor: number): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    withBundleId(
      `(function (exports) { exports.answer = [6, ${factor}].reduce((a, b) => a * b); })`,
    ),
  );
  return file;
}

function run(file: string, cacheFile: string | undefined): { answer: number; codeCache: string } {
  const { script, codeCache } = compileBundle(file, cacheFile);
  const exports = { answer: 0 };
  (script.runInThisContext() as (into: typeof exports) => void)(exports);
  return { answer: exports.answer, codeCache };
}

/** A code cache of the bundle `factor` makes, compiled under a name of its own. */
function cacheOf(name: string, factor: number): string {
  const cache = join(dir, `${name}.v8cache`);
  writeFileSync(cache, codeCacheBytes(compileBundle(bundleFile(`${name}.cjs`, factor), undefined)));
  return cache;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('compileBundle', () => {
  it('compiles without a cache, and says so when the cache file is missing', () => {
    expect(run(bundleFile('plain.cjs', 2), undefined)).toEqual({ answer: 12, codeCache: 'none' });
    expect(run(bundleFile('missing.cjs', 3), join(dir, 'absent.v8cache'))).toEqual({
      answer: 18,
      codeCache: 'none',
    });
  });

  it('uses a cache made from the same bundle', () => {
    const cache = cacheOf('made', 7);
    expect(run(bundleFile('same.cjs', 7), cache)).toEqual({ answer: 42, codeCache: 'used' });
  });

  it('compiles as usual when V8 refuses the cache: another build, or damaged', () => {
    const cache = cacheOf('other', 8);
    expect(run(bundleFile('changed.cjs', 9), cache)).toEqual({ answer: 54, codeCache: 'refused' });
    const file = bundleFile('damaged.cjs', 5);
    const id = readFileSync(file, 'latin1').trimEnd().split('bundle-id=').pop();
    const damaged = join(dir, 'damaged.v8cache');
    writeFileSync(damaged, `${id}\nnot a code cache`);
    expect(run(file, damaged)).toEqual({ answer: 30, codeCache: 'refused' });
  });
});
