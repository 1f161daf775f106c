#!/usr/bin/env node
// Builds the optional addons under native/ (os-memory: docs/configuration.md "Memory"; chunk-io:
// docs/storage.md "Transfers") with node-gyp. It runs at install (npm ci, npm install) and, with
// --if-missing, as the first step of `npm run build` for the addons not built yet. It never
// fails: without a compiler, Python or Node's headers the daemon runs as well (holding more
// memory than it needs, moving chunks through WebCrypto and node:fs), so a failed build is told
// in one line per addon and the script exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ADDONS = ['os-memory', 'chunk-io'];
const nativeDir = fileURLToPath(new URL('../native/', import.meta.url));

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

// Node's own headers where it was installed with them (/usr/include/node beside /usr/bin/node):
// without a nodedir node-gyp would download them, which needs the network. npm passes the
// nodedir of its configuration, if any, itself.
const prefix = join(dirname(process.execPath), '..');
const localHeaders =
  process.env.npm_config_nodedir === undefined &&
  existsSync(join(prefix, 'include', 'node', 'node_api.h'))
    ? [`--nodedir=${prefix}`]
    : [];

for (const name of ADDONS) {
  const addonDir = join(nativeDir, name);
  const built = join(addonDir, 'build', 'Release', `${name.replaceAll('-', '_')}.node`);
  if (process.argv.includes('--if-missing') && existsSync(built)) continue;
  const result = existsSync(nodeGyp)
    ? spawnSync(process.execPath, [nodeGyp, 'rebuild', ...localHeaders], {
        cwd: addonDir,
        encoding: 'utf8',
      })
    : undefined;
  if (result?.status === 0) {
    console.log(`built the ${name} addon (native/${name})`);
    continue;
  }
  const reason =
    result === undefined
      ? 'node-gyp not found'
      : (result.error?.message ??
        (`${result.stderr}`.split('\n').find((line) => line.includes('ERR!')) ||
          `exit ${result.status}`));
  console.log(
    `the optional ${name} addon was not built (${reason.trim()}); the daemon runs without it`,
  );
}
