#!/usr/bin/env node
// Makes the V8 code caches of the daemon bundle, dist/daemon/run-daemon.<key>.v8cache, and of the
// thread bundles, dist/daemon/call-threads/call-thread.<key>.v8cache and
// dist/daemon/trace/trace-thread.<key>.v8cache (how they are used: src/daemon/daemon-bundle.ts).
// V8 takes a cache only in a process started with the V8 flags it was made with, so there is one
// for each way the node is started: the background daemon's flags (src/shared/daemon-runtime.ts)
// and none (`daemon start --foreground`, the entry run directly). For each, a child Node process with those flags and no NODE_OPTIONS starts a node
// on a temporary data directory, answers one eth_blockNumber over HTTP (so the request path is
// in the cache too, as the first answer is what a start waits for), runs calls until its call
// thread and a trace until its trace thread have written their caches after answering them,
// writes the daemon's cache and stops; then another child checks that V8 takes all three.
//   node scripts/daemon-code-cache.js
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { fetch } from 'undici';
import {
  CALL_THREAD_BUNDLE_FILE,
  DAEMON_BUNDLE_FILE,
  MAKE_THREAD_CODE_CACHES_ENV,
  TRACE_THREAD_BUNDLE_FILE,
  codeCacheFileOf,
  daemonCodeCacheFile,
  loadDaemonBundle,
} from '../dist/daemon/daemon-bundle.js';
import { HEAP_GROWING_PERCENT } from '../dist/daemon/heap-growth.js';
import { codeCacheBytes, compileBundle } from '../dist/shared/bundle-script.js';
import { dataDirLayout } from '../dist/shared/datadir-layout.js';
import { DAEMON_NODE_FLAGS } from '../dist/shared/daemon-runtime.js';

const SELF = fileURLToPath(import.meta.url);
const THREAD_BUNDLES = [CALL_THREAD_BUNDLE_FILE, TRACE_THREAD_BUNDLE_FILE];
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
  for (const file of THREAD_BUNDLES) rmSync(codeCacheFileOf(file), { force: true });
  process.env[MAKE_THREAD_CODE_CACHES_ENV] = '1';
  const bundle = loadDaemonBundle({ withoutCodeCache: true });
  try {
    await bundle.exports.runDaemon({
      dataDir,
      flags: LOOPBACK,
      env: {},
      onReady: (info) => void answerAndCache(info.endpoints.http, dataDir, bundle),
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function answerAndCache(url, dataDir, bundle) {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    const { result } = await response.json();
    if (typeof result !== 'string') throw new Error('the node did not answer eth_blockNumber');
    await callUntilCached(CALL_THREAD_BUNDLE_FILE, url, {}, [
      { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ data: CALL_CODE }, 'latest'] },
      { jsonrpc: '2.0', id: 2, method: 'eth_estimateGas', params: [{ data: CALL_CODE }] },
    ]);
    const token = readFileSync(dataDirLayout(dataDir).authTokenFile, 'utf8').trim();
    await callUntilCached(TRACE_THREAD_BUNDLE_FILE, url, { authorization: `Bearer ${token}` }, [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'debug_traceCall',
        params: [{ data: CALL_CODE }, 'latest', { tracer: 'callTracer' }],
      },
    ]);
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
 * Init code for the calls and the trace: reads slot 0, hashes it, returns the hash; a thread
 * compiles the message set-up, the state reads and a few opcodes' handlers for it.
 */
const CALL_CODE = '0x600054600052602060002060005260206000f3';
const THREAD_CACHE_WAIT_MS = 30_000;

/**
 * Sends the JSON-RPC batch `requests` (with `headers`) until the thread of `bundleFile` has
 * written its cache: the first ones may be answered before the thread has started.
 */
async function callUntilCached(bundleFile, url, headers, requests) {
  const threadCache = codeCacheFileOf(bundleFile);
  const deadline = Date.now() + THREAD_CACHE_WAIT_MS;
  while (!existsSync(threadCache)) {
    if (Date.now() > deadline) {
      throw new Error(`the thread of ${relative(ROOT, bundleFile)} wrote no code cache`);
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(requests),
    });
    for (const answer of await response.json()) {
      if (answer.error) throw new Error(`the node refused a call: ${answer.error.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Child: tells whether V8 takes this process's caches (the daemon's, then the threads'). */
function checkCache() {
  const daemon = loadDaemonBundle().codeCache;
  // A thread starts in a node that has set its heap growth (src/daemon/heap-growth.ts), which V8
  // counts among the flags it checks a cache against.
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const threads = THREAD_BUNDLES.map((file) => compileBundle(file, codeCacheFileOf(file)));
  process.stdout.write([daemon, ...threads.map((thread) => thread.codeCache)].join(' '));
}

/** Parent: one cache per way the node is started. */
function makeAll() {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  for (const flags of [[], [...DAEMON_NODE_FLAGS]]) {
    execFileSync(process.execPath, [...flags, SELF, '--make'], { env, stdio: 'inherit' });
    const use = execFileSync(process.execPath, [...flags, SELF, '--check'], { env }).toString();
    const files = [DAEMON_BUNDLE_FILE, ...THREAD_BUNDLES].map((bundle) =>
      relative(ROOT, codeCacheFileOf(bundle, flags, undefined)),
    );
    use.split(' ').forEach((taken, index) => {
      if (taken !== 'used') throw new Error(`V8 did not take ${files[index]} (${taken})`);
    });
    console.log(`wrote ${files.join(', ')} (flags: ${flags.join(' ') || 'none'})`);
  }
}

const mode = process.argv[2];
if (mode === '--make') await makeCache();
else if (mode === '--check') checkCache();
else makeAll();
