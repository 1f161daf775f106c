#!/usr/bin/env node
// Bundles the daemon after tsc. dist/daemon/run-daemon.js and everything it imports become one
// CommonJS file, dist/daemon/run-daemon.cjs, written as the function expression that
// src/daemon/daemon-bundle.ts compiles with V8's code cache (scripts/daemon-code-cache.js makes
// the caches; how and why is told in daemon-bundle.ts), for the background entry
// (dist/daemon/main.js) and `daemon start --foreground`; tsc's run-daemon.js is removed. The
// background entry itself is also written as CommonJS, dist/daemon/main.cjs, with the few
// modules it imports (the code cache's loader), for `daemon start`: a process whose entry is an
// ES module starts Node's ES module loader first, 30-40 ms on a slow machine. The call threads'
// and the trace threads' code is bundled the same way, into
// dist/daemon/call-threads/call-thread.cjs and dist/daemon/trace/trace-thread.cjs with code
// caches of their own, loaded by their entries,
// call-thread-entry.cjs and trace-thread-entry.cjs (CommonJS beside their tsc output), so a
// thread that starts on demand does not compile a megabyte of JavaScript first. Start-up was
// dominated by Node resolving, reading and linking several hundred module files (EthereumJS,
// @polkadot/util, ajv, ...); one file cuts time to the first answer by more than half. The rest
// of the tsc output stays as it is: the CLI still imports its own modules.
//
// EthereumJS's EVM and state manager are bundled with the small edits of
// scripts/ethereumjs-patches.js made to them (docs/evm-patches.md); node_modules itself is never
// changed.
//
// Four things stay outside the bundles:
// - lmdb, a native addon that finds its binary relative to its own package directory;
// - secp256k1, for the same reason (loaded with createRequire, which esbuild does not follow,
//   and listed so that a plain import of it later stays outside too);
// - the error classes of dist/shared/ (errors.cjs, which errors.js re-exports), so the error
//   classes runDaemon throws are the ones the CLI process has loaded and `instanceof NodeError`
//   keeps deciding how a failed foreground start is told;
// - the WebAssembly of @polkadot/wasm-crypto: that package ships it deflated and base64-encoded
//   and inflates it on every start (tens of milliseconds); here it is inflated once, written
//   beside the bundle and read as bytes.
//
// Code that finds files from import.meta.url (package.json two levels up, the sender recovery
// worker and the call thread entry beside node.js) sees the bundle's URL, which is in
// dist/daemon/ as node.js is.
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasmBytes } from '@polkadot/wasm-crypto-wasm';
import { asciiSource, assertAsciiFile } from './ascii-source.js';
import { ethereumjsPatches, patchedFiles } from './ethereumjs-patches.js';
import { ownModuleUrls } from './own-module-urls.js';

const dist = fileURLToPath(new URL('../dist/daemon/', import.meta.url));
/** The daemon, the call threads and the trace threads: tsc's file of each, bundled beside it. */
const BUNDLES = ['run-daemon', 'call-threads/call-thread', 'trace/trace-thread'];
const errorsFile = fileURLToPath(new URL('../dist/shared/errors.js', import.meta.url));
const errorsCommonJsFile = fileURLToPath(new URL('../dist/shared/errors.cjs', import.meta.url));
const { DAEMON_BUNDLE_WRAPPER } = await import('../dist/daemon/daemon-bundle.js');
const { withBundleId } = await import('../dist/shared/bundle-script.js');
const wasmFile = `${dist}wasm-crypto.wasm`;

/** `file` as a relative import from the folder of `bundleFile`. */
function importPath(bundleFile, file) {
  const path = relative(dirname(bundleFile), file);
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * Leaves the error classes out of the bundle written to `bundleFile`: its imports of
 * dist/shared/errors.js load errors.cjs from there instead.
 * @returns {import('esbuild').Plugin}
 */
function errorsOutside(bundleFile) {
  return {
    name: 'errors-outside',
    setup(plugin) {
      plugin.onResolve({ filter: /^\.{1,2}\/(.*\/)?errors\.js$/ }, (args) =>
        resolve(args.resolveDir, args.path) === errorsFile
          ? {
              path: importPath(bundleFile, errorsCommonJsFile),
              external: true,
            }
          : undefined,
      );
    },
  };
}

/**
 * Bundles `<name>.js` (tsc output) and everything it imports into `<name>.cjs`, as CommonJS
 * written as the function expression the loader compiles, and removes the tsc file.
 */
async function bundle(name) {
  const entry = `${dist}${name}.js`;
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run tsc before bundling`);
  const bundleFile = `${dist}${name}.cjs`;
  let wasmModuleReplaced = false;
  const evmPatches = ethereumjsPatches();
  /** @type {import('esbuild').Plugin} */
  const keepOutside = {
    name: 'keep-outside',
    setup(plugin) {
      errorsOutside(bundleFile).setup(plugin);
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
    entryPoints: [entry],
    outfile: bundleFile,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // The bundle is given its URL by its loader.
    define: { 'import.meta.url': '__bundleUrl' },
    // Native modules load from node_modules; ws takes bufferutil when it is there to unmask
    // client frames natively (in JavaScript it was a fifth of the main thread's time for
    // WebSocket clients sending large requests).
    external: ['lmdb', 'fs-native-extensions', 'secp256k1', 'bufferutil'],
    plugins: [keepOutside, evmPatches.plugin],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const code = asciiSource(readFileSync(bundleFile, 'utf8'));
  writeFileSync(
    bundleFile,
    withBundleId(`${DAEMON_BUNDLE_WRAPPER.head}${code}${DAEMON_BUNDLE_WRAPPER.tail}`),
  );
  assertAsciiFile(bundleFile);
  rmSync(entry);
  rmSync(`${entry}.map`, { force: true });
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

for (const each of BUNDLES) await bundle(each);
writeFileSync(wasmFile, wasmBytes);

/**
 * The entry `name` (tsc output, `<name>.js`) as CommonJS beside it, `<name>.cjs`, with the few
 * modules it imports (see the head of this file).
 */
async function commonJsEntry(name) {
  const entryFile = `${dist}${name}.cjs`;
  await build({
    entryPoints: [`${dist}${name}.js`],
    outfile: entryFile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    plugins: [errorsOutside(entryFile), ownModuleUrls(dirname(entryFile))],
    logLevel: 'warning',
  });
  console.log(`bundled ${relative(fileURLToPath(new URL('..', import.meta.url)), entryFile)}`);
}

await commonJsEntry('main');
await commonJsEntry('call-threads/call-thread-entry');
await commonJsEntry('trace/trace-thread-entry');
