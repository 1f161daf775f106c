#!/usr/bin/env node
// Makes the V8 code caches of the daemon bundle, dist/daemon/run-daemon.<key>.v8cache, and of the
// call threads' bundle, dist/daemon/call-threads/call-thread.<key>.v8cache (how they are used:
// src/daemon/daemon-bundle.ts). V8 takes a cache only in a process started with the V8 flags it
// was made with, so there is one for each way the node is started: the background daemon's
// flags (src/shared/daemon-runtime.ts) and none (`daemon start --foreground`, the entry run
// directly). For each, a child Node process with those flags and no NODE_OPTIONS starts a node
// on a temporary data directory, answers one eth_blockNumber over HTTP (so the request path is
// in the cache too, as the first answer is what a start waits for) and runs calls until its call
// thread has written its cache after answering them, writes the daemon's cache and stops; then
// another child checks that V8 takes both.
//   node scripts/daemon-code-cache.js
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { fetch } from 'undici';
import {
  CALL_THREAD_BUNDLE_FILE,
  DAEMON_BUNDLE_FILE,
  MAKE_CALL_THREAD_CACHE_ENV,
  codeCacheFileOf,
  daemonCodeCacheFile,
  loadDaemonBundle,
} from '../dist/daemon/daemon-bundle.js';
import { HEAP_GROWING_PERCENT } from '../dist/daemon/heap-growth.js';
import { codeCacheBytes, compileBundle } from '../dist/shared/bundle-script.js';
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
  rmSync(codeCacheFileOf(CALL_THREAD_BUNDLE_FILE), { force: true });
  process.env[MAKE_CALL_THREAD_CACHE_ENV] = '1';
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
    await runCallsUntilThreadCache(url);
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

/**
 * Init code for `eth_call`: reads slot 0, hashes it, returns the hash; a call thread compiles
 * the message set-up, the state reads and a few opcodes' handlers for it.
 */
const CALL_CODE = '0x600054600052602060002060005260206000f3';
const THREAD_CACHE_WAIT_MS = 30_000;

/**
 * Sends calls and gas estimates until the call thread has written its code cache: the first
 * ones may run in this thread while the call thread starts.
 */
async function runCallsUntilThreadCache(url) {
  const threadCache = codeCacheFileOf(CALL_THREAD_BUNDLE_FILE);
  const deadline = Date.now() + THREAD_CACHE_WAIT_MS;
  while (!existsSync(threadCache)) {
    if (Date.now() > deadline) throw new Error('the call thread wrote no code cache');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ data: CALL_CODE }, 'latest'] },
        { jsonrpc: '2.0', id: 2, method: 'eth_estimateGas', params: [{ data: CALL_CODE }] },
      ]),
    });
    for (const answer of await response.json()) {
      if (answer.error) throw new Error(`the node refused a call: ${answer.error.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Child: tells whether V8 takes this process's caches (the daemon's, then the call thread's). */
function checkCache() {
  const daemon = loadDaemonBundle().codeCache;
  // A call thread starts in a node that has set its heap growth (src/daemon/heap-growth.ts),
  // which V8 counts among the flags it checks a cache against.
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const thread = compileBundle(CALL_THREAD_BUNDLE_FILE, codeCacheFileOf(CALL_THREAD_BUNDLE_FILE));
  process.stdout.write(`${daemon} ${thread.codeCache}`);
}

/** Parent: one cache per way the node is started. */
function makeAll() {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  for (const flags of [[], [...DAEMON_NODE_FLAGS]]) {
    execFileSync(process.execPath, [...flags, SELF, '--make'], { env, stdio: 'inherit' });
    const use = execFileSync(process.execPath, [...flags, SELF, '--check'], { env }).toString();
    const files = [DAEMON_BUNDLE_FILE, CALL_THREAD_BUNDLE_FILE].map((bundle) =>
      relative(ROOT, codeCacheFileOf(bundle, flags, undefined)),
    );
    use.split(' ').forEach((taken, index) => {
      if (taken !== 'used') throw new Error(`V8 did not take ${files[index]} (${taken})`);
    });
    console.log(`wrote ${files.join(' and ')} (flags: ${flags.join(' ') || 'none'})`);
  }
}

const mode = process.argv[2];
if (mode === '--make') await makeCache();
else if (mode === '--check') checkCache();
else makeAll();
