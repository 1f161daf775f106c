#!/usr/bin/env node
// Makes dist/cli-bundle.v8cache, the V8 code cache of the CLI bundle (scripts/bundle-cli.js
// runs it after bundling). V8 caches the functions compiled so far, so the bundle first runs
// the kinds of call that scripts make most: a usage error, chain reads by data directory (no
// daemon there: the not-running error) and by URL (nothing listens: the unreachable error),
// and the help. Output is discarded; what matters is the code these runs compiled.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CODE_CACHE_FILE, loadCliBundle, loadOptionsFor } from '../dist/cli/cli-bundle.js';
import { codeCacheBytes } from '../dist/shared/bundle-script.js';
import { freePort } from './bench/processes/free-port.js';

const emptyDataDir = mkdtempSync(join(tmpdir(), 'node-cli-code-cache-'));
// A loopback port nothing listens on: refused at once, no daemon or network needed.
const nowhere = `http://127.0.0.1:${await freePort()}`;
const warmUps = [
  ['block', 'get', '--bogus'],
  ['rpc', 'eth_blockNumber', '--datadir', emptyDataDir],
  ['block', 'get', '--json', '--datadir', emptyDataDir],
  ['rpc', 'eth_blockNumber', '--rpc-url', nowhere],
  ['block', 'get', '--json', '--rpc-url', nowhere],
  ['rpc', '--help'],
];

const bundle = loadCliBundle({ withoutCodeCache: true });
const { exports } = bundle;
const write = process.stdout.write;
const writeError = process.stderr.write;
process.stdout.write = process.stderr.write = () => true;
try {
  for (const argv of warmUps) {
    await exports.run(argv, await loadOptionsFor(argv, exports)).catch(() => undefined);
  }
} finally {
  process.stdout.write = write;
  process.stderr.write = writeError;
  rmSync(emptyDataDir, { recursive: true, force: true });
}
const cache = codeCacheBytes(bundle);
writeFileSync(CODE_CACHE_FILE, cache);
// The failing warm-up calls set the exit code, as they do in the CLI; this script succeeded.
process.exitCode = 0;
console.log(`wrote dist/cli-bundle.v8cache (${Math.round(cache.length / 1024)} KiB)`);
