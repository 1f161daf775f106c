#!/usr/bin/env node
// Builds the optional os-memory addon (native/os-memory, docs/configuration.md "Memory") with
// node-gyp. It runs at install (npm ci, npm install) and, with --if-missing, as the first step of
// `npm run build`. It never fails: without a compiler, Python or Node's headers the daemon runs
// as well, only holding more memory than it needs, so a failed build is told in one line
// and the script exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const addonDir = fileURLToPath(new URL('../native/os-memory/', import.meta.url));
const built = join(addonDir, 'build', 'Release', 'os_memory.node');

if (process.argv.includes('--if-missing') && existsSync(built)) process.exit(0);

// npm names its own node-gyp to the scripts it runs; otherwise take the one npm ships beside node.
const nodeGyp =
  process.env.npm_config_node_gyp ??
  join(
    dirname(process.execPath),
    '..',
    'lib',
    'node_modules',
    'npm',
    'node_modules',
    'node-gyp',
    'bin',
    'node-gyp.js',
  );
const result = existsSync(nodeGyp)
  ? spawnSync(process.execPath, [nodeGyp, 'rebuild'], { cwd: addonDir, encoding: 'utf8' })
  : undefined;

if (result?.status === 0) {
  console.log('built the os-memory addon (native/os-memory)');
} else {
  const reason =
    result === undefined
      ? 'node-gyp not found'
      : (result.error?.message ??
        (`${result.stderr}`.split('\n').find((line) => line.includes('ERR!')) ||
          `exit ${result.status}`));
  console.log(
    `the optional os-memory addon was not built (${reason.trim()}); the daemon runs without it`,
  );
}
