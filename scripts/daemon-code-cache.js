#!/usr/bin/env node
// Makes the V8 code caches of the daemon bundle, dist/daemon/run-daemon.<key>.v8cache (how they
// are used: src/daemon/daemon-bundle.ts). V8 takes a cache only in a process started with the V8
// flags it was made with, so there is one for each way the node is started: the background
// daemon's flags (src/shared/daemon-runtime.ts) and none (`daemon start --foreground`, the
// entry run directly). For each, a child Node process with those flags and no NODE_OPTIONS
// starts a node on a temporary data directory, answers one eth_blockNumber over HTTP (so the
// request path is in the cache too, as the first answer is what a start waits for), writes the
// cache and stops; then another child checks that V8 takes it.
//   node scripts/daemon-code-cache.js
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { fetch } from 'undici';
import { daemonCodeCacheFile, loadDaemonBundle } from '../dist/daemon/daemon-bundle.js';
import { codeCacheBytes } from '../dist/shared/bundle-script.js';
import { DAEMON_NODE_FLAGS } from '../dist/shared/daemon-runtime.js';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOOPBACK = {
  'json-rpc.address': '127.0.0.1:0',
  'json-rpc.ws-address': '127.0.0.1:0',
  'rpc.laddr': 'tcp://127.0.0.1:0',
  'rest.address': '127.0.0.1:0',
  'log-level': 'warn',
};

/** Child: starts a node from the bundle compiled without a cache, then writes the cache. */
async function makeCache() {
  const dataDir = mkdtempSync(join(tmpdir(), 'node-cli-code-cache-'));
  const bundle = loadDaemonBundle({ withoutCodeCache: true });
  try {
    await bundle.exports.runDaemon({
      dataDir,
      flags: LOOPBACK,
      env: {},
      onReady: (info) => void answerAndCache(info.endpoints.http, bundle),
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function answerAndCache(url, bundle) {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    const { result } = await response.json();
    if (typeof result !== 'string') throw new Error('the node did not answer eth_blockNumber');
    // The node changed V8's heap growth (src/daemon/heap-growth.ts), and V8 stamps a cache with
    // the flags in force; the processes that read it start with the default.
    setFlagsFromString('--heap-growing-percent=0');
    writeFileSync(daemonCodeCacheFile(), codeCacheBytes(bundle));
  } catch (error) {
    process.exitCode = 1;
    console.error(`code cache not made: ${error.message}`);
  }
  process.kill(process.pid, 'SIGTERM');
}

/** Child: tells whether V8 takes this process's cache. */
function checkCache() {
  process.stdout.write(loadDaemonBundle().codeCache);
}

/** Parent: one cache per way the node is started. */
function makeAll() {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  for (const flags of [[], [...DAEMON_NODE_FLAGS]]) {
    execFileSync(process.execPath, [...flags, SELF, '--make'], { env, stdio: 'inherit' });
    const use = execFileSync(process.execPath, [...flags, SELF, '--check'], { env }).toString();
    const file = relative(ROOT, daemonCodeCacheFile(flags, undefined));
    if (use !== 'used') throw new Error(`V8 did not take ${file} (${use})`);
    console.log(`wrote ${file} (flags: ${flags.join(' ') || 'none'})`);
  }
}

const mode = process.argv[2];
if (mode === '--make') await makeCache();
else if (mode === '--check') checkCache();
else makeAll();
