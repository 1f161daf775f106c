/**
 * The optional N-API addons under `native/`, built with node-gyp at install when a compiler is at
 * hand (scripts/build-native.js). The daemon runs without them; each user falls back to what
 * Node offers and says at `debug` which way it went.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export type AddonName = 'os-memory' | 'chunk-io';

// This module sits in dist/daemon/ (and the daemon's bundle beside it), two levels below the
// package root, as in src/.
const NATIVE_DIR = new URL('../../native/', import.meta.url);

/** Where node-gyp puts the addon `name`: `native/<name>/build/Release/<name with _>.node`. */
export function addonUrl(name: AddonName): URL {
  return new URL(`${name}/build/Release/${name.replaceAll('-', '_')}.node`, NATIVE_DIR);
}

/** The exports of the addon at `url`; throws when it was not built or cannot load here. */
export function requireAddon(url: URL): Record<string, unknown> {
  return createRequire(import.meta.url)(fileURLToPath(url)) as Record<string, unknown>;
}
