/**
 * Compiles a bundle that the build wrote as one function expression, with V8's code cache when
 * there is one. Node 20 has no `module.enableCompileCache`; `vm.Script` with `cachedData` is what
 * it offers. V8 takes the compiled functions from the cache instead of parsing megabytes of
 * JavaScript, or refuses the cache (another Node version, other V8 flags, another build of the
 * bundle) and compiles as usual. Used by the CLI (`src/cli/cli-bundle.ts`) and by the daemon
 * (`src/daemon/daemon-bundle.ts`).
 */
import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';

/** Whether V8 compiled a bundle from its code cache. */
export type CodeCacheUse = 'used' | 'refused' | 'none';

/** The bundle in `file` compiled, from `cacheFile` when given, present and taken by V8. */
export function compileBundle(
  file: string,
  cacheFile: string | undefined,
): { script: Script; codeCache: CodeCacheUse } {
  // The bundles are ASCII (the build makes them so), so latin1 decodes them unchanged, into V8's
  // compact strings, kept outside V8's heap at this size. The text goes to V8 as it was read: a
  // string built around it here would be copied whole into the young heap.
  const source = readFileSync(file, 'latin1');
  const cachedData = cacheFile === undefined ? undefined : readIfPresent(cacheFile);
  const script = new Script(source, { filename: file, cachedData });
  const codeCache =
    cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'refused' : 'used';
  return { script, codeCache };
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
