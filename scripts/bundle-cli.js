#!/usr/bin/env node
// Bundles @oclif/core into one file after tsc, dist/vendor/oclif-core.js, and points the CLI's
// imports of '@oclif/core' in the tsc output (dist/) at it; bin/run.js imports it directly. Loading the package
// meant resolving, reading and compiling about 130 CommonJS files (semver alone is 47, only for
// a Node version warning npm already gives from "engines"): half of a `node-cli rpc` call. Our
// own modules stay as tsc wrote them, so a command still loads only what it imports.
//
// The plugins in node_modules (help, autocomplete, not-found) keep importing the package
// itself; they run only for their own commands and hooks, and oclif treats commands and errors
// by shape, not by class identity.
import { build } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const vendorFile = join(dist, 'vendor', 'oclif-core.js');
const SPECIFIER = /(from\s+|import\(\s*)'@oclif\/core'/g;

const names = Object.keys(createRequire(import.meta.url)('@oclif/core')).filter(
  (name) => name !== 'default' && name !== '__esModule',
);

await build({
  stdin: {
    contents: `import * as core from '@oclif/core';\nexport const { ${names.join(', ')} } = core;\n`,
    resolveDir: root,
    sourcefile: 'oclif-core-entry.js',
  },
  outfile: vendorFile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // CommonJS code calls require() for Node's built-ins and for plugins' files at run time.
  banner: {
    js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);",
  },
  define: { 'process.env.OCLIF_DISABLE_ENGINE_WARNING': '"1"' },
  // Loaded only to run a CLI from TypeScript sources (oclif's development mode), never here.
  external: ['typescript', 'source-map-support'],
  logLevel: 'warning',
});

/** Every .js file below `dir`. */
function* scripts(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* scripts(path);
    else if (entry.name.endsWith('.js')) yield path;
  }
}

let rewritten = 0;
for (const file of scripts(dist)) {
  if (file === vendorFile) continue;
  const text = readFileSync(file, 'utf8');
  if (!text.includes("'@oclif/core'")) continue;
  let target = relative(dirname(file), vendorFile);
  if (!target.startsWith('.')) target = `./${target}`;
  writeFileSync(file, text.replace(SPECIFIER, `$1'${target}'`));
  rewritten++;
}
console.log(`bundled dist/vendor/oclif-core.js (${rewritten} modules point at it)`);
