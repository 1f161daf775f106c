#!/usr/bin/env node
// Bundles the daemon after tsc: dist/daemon/run-daemon.js and everything it imports become that
// one file, which both the background entry (dist/daemon/main.js) and `daemon start --foreground`
// import; the entry of the call threads (dist/daemon/call-threads/call-thread.js) becomes a
// bundle of its own in the same way. Start-up was dominated by Node resolving, reading and linking several hundred module
// files (EthereumJS, @polkadot/util, ajv, ...); one file cuts time to the first answer by more
// than half. The rest of the tsc output stays as it is: the CLI still imports its own modules.
//
// EthereumJS's EVM and state manager are bundled with the small edits of
// scripts/ethereumjs-patches.js made to them (docs/evm-patches.md); node_modules itself is never
// changed.
//
// Four things stay outside the bundle:
// - lmdb, a native addon that finds its binary relative to its own package directory;
// - secp256k1, for the same reason (loaded with createRequire, which esbuild does not follow,
//   and listed so that a plain import of it later stays outside too);
// - dist/shared/errors.js, so the error classes runDaemon throws are the ones the CLI process
//   has loaded (the CLI imports that module too) and `instanceof NodeError` keeps deciding how a
//   failed foreground start is told;
// - the WebAssembly of @polkadot/wasm-crypto: that package ships it deflated and base64-encoded
//   and inflates it on every start (tens of milliseconds); here it is inflated once, written
//   beside the bundle and read as bytes.
//
// Code that finds files from import.meta.url (package.json two levels up, the sender recovery
// worker and the call thread entry beside node.js) sees the bundle's URL, which is in
// dist/daemon/ as node.js is.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasmBytes } from '@polkadot/wasm-crypto-wasm';
import { ethereumjsPatches, patchedFiles } from './ethereumjs-patches.js';

const dist = fileURLToPath(new URL('../dist/daemon/', import.meta.url));
const BUNDLES = [
  `${dist}run-daemon.js`,
  `${dist}call-threads/call-thread.js`,
  `${dist}trace/trace-thread.js`,
];
const errorsFile = fileURLToPath(new URL('../dist/shared/errors.js', import.meta.url));
const wasmFile = `${dist}wasm-crypto.wasm`;
/** First line of the bundle; also tells a bundle apart from tsc output. */
const BANNER =
  "import { createRequire as createBundleRequire } from 'node:module'; " +
  'const require = createBundleRequire(import.meta.url);';

/** `file` as a relative import from the folder of `bundleFile`. */
function importPath(bundleFile, file) {
  const path = relative(dirname(bundleFile), file);
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * Rewrites the characters past Latin-1 in `bundleFile` as `?`. V8 keeps a script's source in
 * memory for as long as its functions may be compiled, and one such character makes it store all
 * of it with two bytes per character: 4.4 MB more in the main thread for the daemon's bundle, 1.1
 * MB more in every call thread. esbuild escapes every character past ASCII in code, so the only
 * ones left are in the comments it keeps (a check with a parser found no other on 2026-11-26;
 * regular expressions keep `µ`, which is Latin-1). One `?` per UTF-16 unit keeps every column,
 * so the source map still lines up.
 */
function keepSourceOneByte(bundleFile) {
  const source = readFileSync(bundleFile, 'utf8');
  // eslint-disable-next-line no-control-regex -- the range is the point
  const oneByte = source.replace(/[^\u0000-\u00ff]/g, '?');
  if (oneByte !== source) writeFileSync(bundleFile, oneByte);
}

/** Replaces `bundleFile` (tsc output) with a bundle of it and everything it imports. */
async function bundle(bundleFile) {
  if (readFileSync(bundleFile, 'utf8').startsWith(BANNER)) {
    throw new Error(`${bundleFile} is already a bundle: run tsc before bundling`);
  }
  let wasmModuleReplaced = false;
  const evmPatches = ethereumjsPatches();
  /** @type {import('esbuild').Plugin} */
  const keepOutside = {
    name: 'keep-outside',
    setup(plugin) {
      plugin.onResolve({ filter: /^\.{1,2}\/(.*\/)?errors\.js$/ }, (args) =>
        resolve(args.resolveDir, args.path) === errorsFile
          ? { path: importPath(bundleFile, errorsFile), external: true }
          : undefined,
      );
      plugin.onLoad({ filter: /[\\/]@polkadot[\\/]wasm-crypto-wasm[\\/]bundle\.js$/ }, (args) => {
        wasmModuleReplaced = true;
        return {
          resolveDir: fileURLToPath(new URL('.', `file://${args.path}`)),
          contents: [
            "import { readFileSync } from 'node:fs';",
            "export { packageInfo } from './packageInfo.js';",
            `export const wasmBytes = readFileSync(new URL('${importPath(bundleFile, wasmFile)}', import.meta.url));`,
          ].join('\n'),
        };
      });
    },
  };
  await build({
    entryPoints: [bundleFile],
    outfile: bundleFile,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // CommonJS dependencies call require() for Node's built-in modules, which an ES module
    // bundle only has through createRequire.
    banner: { js: BANNER },
    // Native modules load from node_modules; ws takes bufferutil when it is there to unmask
    // client frames natively (in JavaScript it was a fifth of the main thread's time for
    // WebSocket clients sending large requests).
    external: ['lmdb', 'fs-native-extensions', 'secp256k1', 'bufferutil'],
    plugins: [keepOutside, evmPatches.plugin],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  keepSourceOneByte(bundleFile);
  if (!wasmModuleReplaced) {
    throw new Error(
      '@polkadot/wasm-crypto-wasm changed its layout: update scripts/bundle-daemon.js',
    );
  }
  if (evmPatches.applied().length !== patchedFiles().length) {
    throw new Error(
      `${bundleFile}: not every patched EthereumJS file was bundled (scripts/ethereumjs-patches.js)`,
    );
  }
  console.log(`bundled ${relative(fileURLToPath(new URL('..', import.meta.url)), bundleFile)}`);
}

for (const bundleFile of BUNDLES) await bundle(bundleFile);
writeFileSync(wasmFile, wasmBytes);
