#!/usr/bin/env node
// Bundles the CLI after tsc into one CommonJS file, dist/cli-bundle.cjs: @oclif/core, every
// command and hook, and what they import (each module of the bundle runs only when a command
// first imports it). Then scripts/cli-code-cache.js makes a V8 code cache of it. Loading ~130
// files of @oclif/core and a command's own dozens one by one, and compiling them on every call,
// was most of a short command's run; how the bundle is loaded is told in src/cli/cli-bundle.ts.
//
// Stays outside the bundle:
// - the large libraries few commands need (ethers, ws, undici, inquirer): in the bundle they
//   made every call read and deserialize megabytes more; they are required when used;
// - the daemon's modules (dist/daemon/), imported only by `daemon start --foreground` and
//   `daemon check`; they keep their own bundle (scripts/bundle-daemon.js);
// - dist/shared/errors.js, which that daemon code shares with the CLI (instanceof NodeError);
// - what oclif loads only to run a CLI from TypeScript sources, and ws's optional native addons.
//
// The tsc output of the commands stays in dist/: oclif's manifest names their files, and the
// bundle answers the imports of those paths with its own copies.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const bundleFile = join(dist, 'cli-bundle.cjs');
const errorsFile = join(dist, 'shared', 'errors.js');
const daemonDir = join(dist, 'daemon') + sep;
// What src/cli/cli-bundle.ts expects of the bundle; kept in one place there.
const { LOADED_BY_REQUIRE, SHARED_ERRORS_SPECIFIER, commandManifestFile } =
  await import('../dist/cli/cli-bundle.js');

/** Every .js file below `dir`, relative to dist/ with forward slashes. */
function* scripts(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* scripts(path);
    else if (entry.name.endsWith('.js')) yield relative(dist, path).split(sep).join('/');
  }
}

/** `file` (absolute) as a specifier relative to the bundle's folder, dist/. */
function fromBundle(file) {
  return `./${relative(dist, file).split(sep).join('/')}`;
}

const entryModules = [...scripts(join(dist, 'commands')), ...scripts(join(dist, 'hooks'))];
// oclif's ids, space-separated: commands/block/get.js is `block get`, commands/rpc/index.js `rpc`.
const commandIds = [...scripts(join(dist, 'commands'))].map((path) =>
  path
    .replace(/^commands\//, '')
    .replace(/(\/index)?\.js$/, '')
    .replaceAll('/', ' '),
);
const entry = [
  "export { execute, run, Plugin } from '@oclif/core';",
  `export const commandIds = ${JSON.stringify(commandIds)};`,
  'export const bundledModules = {',
  ...entryModules.map((path) => `  ${JSON.stringify(path)}: () => import('./${path}'),`),
  '};',
].join('\n');

/** @type {import('esbuild').Plugin} */
const keepOutside = {
  name: 'keep-outside',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.{1,2}\// }, (args) => {
      const file = resolve(args.resolveDir, args.path);
      if (file === errorsFile) return { path: SHARED_ERRORS_SPECIFIER, external: true };
      if (file.startsWith(daemonDir)) return { path: fromBundle(file), external: true };
      return undefined;
    });
    // oclif sorts the commands of each plugin with localeCompare on every call, and the first
    // localeCompare of a process sets up ICU's collator: about 5 ms, a tenth of a short call.
    // For ids of lowercase letters, ':' and '-' (all of ours and the plugins') the code-point
    // order is the collator's; other ids keep localeCompare. The build fails if oclif's line
    // changes, rather than quietly losing this.
    plugin.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const sort = '.sort((a, b) => a.id.localeCompare(b.id))';
      if (text.split(sort).length !== 2) throw new Error(`${args.path}: the command sort changed`);
      return {
        contents: `${text.replace(sort, '.sort((a, b) => compareCommandIds(a.id, b.id))')}
function compareCommandIds(a, b) {
  const ordinal = /^[a-z:-]*$/;
  if (!ordinal.test(a) || !ordinal.test(b)) return a.localeCompare(b);
  return a < b ? -1 : a > b ? 1 : 0;
}
`,
        resolveDir: dirname(args.path),
      };
    });
    // A CommonJS bundle has no import.meta: a module's own URL is rebuilt from the bundle's
    // folder, so the files it looks for (package.json, the daemon entry) are found wherever the
    // package is installed.
    plugin.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const own = `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${JSON.stringify(relative(dist, args.path))})).href`;
      return { contents: text.replaceAll('import.meta.url', own), resolveDir: dirname(args.path) };
    });
  },
};

await build({
  stdin: { contents: entry, resolveDir: dist, sourcefile: 'cli-bundle-entry.js' },
  outfile: bundleFile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  charset: 'ascii',
  define: { 'process.env.OCLIF_DISABLE_ENGINE_WARNING': '"1"' },
  external: [
    ...LOADED_BY_REQUIRE,
    'typescript',
    'source-map-support',
    'bufferutil',
    'utf-8-validate',
  ],
  plugins: [keepOutside],
  logLevel: 'warning',
});

// Each `import(` becomes a call of the loader's `__import` (see src/cli/cli-bundle.ts). Found
// in the syntax tree, so strings and comments that mention import( stay as they are.
const output = readFileSync(bundleFile, 'utf8');
const tree = ts.createSourceFile(
  bundleFile,
  output,
  ts.ScriptTarget.Latest,
  false,
  ts.ScriptKind.JS,
);
const importStarts = [];
(function visit(node) {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    importStarts.push(node.expression.getStart(tree));
  }
  ts.forEachChild(node, visit);
})(tree);
let rewritten = '';
let copied = 0;
for (const start of importStarts) {
  rewritten += `${output.slice(copied, start)}__import`;
  copied = start + 'import'.length;
}
writeFileSync(bundleFile, rewritten + output.slice(copied));
rmSync(join(dist, 'vendor'), { recursive: true, force: true });
console.log(
  `bundled dist/cli-bundle.cjs (${entryModules.length} commands and hooks, ${importStarts.length} dynamic imports routed)`,
);

// A call of a known command reads that command's part of oclif.manifest.json alone.
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
rmSync(dirname(commandManifestFile('rpc')), { recursive: true, force: true });
mkdirSync(dirname(commandManifestFile('rpc')));
for (const [id, command] of Object.entries(manifest.commands)) {
  const own = { version: manifest.version, commands: { [id]: command } };
  writeFileSync(commandManifestFile(id.replaceAll(':', ' ')), JSON.stringify(own));
}

execFileSync(process.execPath, [join(root, 'scripts', 'cli-code-cache.js')], { stdio: 'inherit' });
