/**
 * Compiles a bundle that the build wrote as one function expression, with V8's code cache when
 * there is one. Node 20 has no `module.enableCompileCache`; `vm.Script` with `cachedData` is what
 * it offers. V8 takes the compiled functions from the cache instead of parsing megabytes of
 * JavaScript, or refuses the cache (another Node version, other V8 flags) and compiles as usual.
 * Used by the CLI (`src/cli/cli-bundle.ts`) and by the daemon (`src/daemon/daemon-bundle.ts`).
 *
 * V8 checks a cache against its source by length only: a cache made for another build of the
 * bundle of the same length would be taken, and the other build's code would run. So the build
 * ends each bundle with its id, a hash of its text (`withBundleId`), a cache file starts with the
 * id of the bundle it was made from (`codeCacheBytes`), and a cache made from another bundle is
 * never given to V8.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';

/** Whether V8 compiled a bundle from its code cache. */
export type CodeCacheUse = 'used' | 'refused' | 'none';

export interface CompiledBundle {
  script: Script;
  codeCache: CodeCacheUse;
  /** The id the bundle ends with (`withBundleId`); undefined when it has none. */
  bundleId: string | undefined;
}

const BUNDLE_ID_MARK = '\n//# bundle-id=';
const BUNDLE_ID_LENGTH = 32;
const NEWLINE = 0x0a;

/** `text` (a bundle as the build wrote it) ended with its id, a hash of the text. */
export function withBundleId(text: string): string {
  const id = createHash('sha256').update(text).digest('hex').slice(0, BUNDLE_ID_LENGTH);
  return `${text}${BUNDLE_ID_MARK}${id}\n`;
}

function bundleIdOf(source: string): string | undefined {
  const tail = source.slice(-(BUNDLE_ID_MARK.length + BUNDLE_ID_LENGTH + 1));
  return tail.startsWith(BUNDLE_ID_MARK) ? tail.slice(BUNDLE_ID_MARK.length).trimEnd() : undefined;
}

/** The contents of a code cache file for `compiled`: its bundle's id, then V8's data. */
export function codeCacheBytes(compiled: Pick<CompiledBundle, 'script' | 'bundleId'>): Buffer {
  if (compiled.bundleId === undefined) throw new Error('the bundle has no id (withBundleId)');
  return Buffer.concat([
    Buffer.from(`${compiled.bundleId}\n`, 'latin1'),
    compiled.script.createCachedData(),
  ]);
}

/** The bundle in `file` compiled, from `cacheFile` when given, present, its own and taken. */
export function compileBundle(file: string, cacheFile: string | undefined): CompiledBundle {
  // The bundles are ASCII (the build makes them so, scripts/ascii-source.js), so latin1 decodes
  // them unchanged, into V8's compact strings, kept outside V8's heap at this size. The text goes
  // to V8 as it was read: a string built around it here would be copied whole into the young heap.
  const source = readFileSync(file, 'latin1');
  const bundleId = bundleIdOf(source);
  const cache = cacheFile === undefined ? undefined : readIfPresent(cacheFile);
  const cachedData = cache === undefined ? undefined : dataFor(bundleId, cache);
  const script = new Script(source, { filename: file, cachedData });
  const codeCache =
    cache === undefined
      ? 'none'
      : cachedData === undefined || script.cachedDataRejected === true
        ? 'refused'
        : 'used';
  return { script, codeCache, bundleId };
}

/** V8's data in `cache` when the cache was made from the bundle `bundleId`. */
function dataFor(bundleId: string | undefined, cache: Buffer): Buffer | undefined {
  const end = cache.indexOf(NEWLINE);
  if (bundleId === undefined || end < 0 || cache.toString('latin1', 0, end) !== bundleId) {
    return undefined;
  }
  return cache.subarray(end + 1);
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
