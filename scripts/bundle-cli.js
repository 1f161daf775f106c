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
// - the error classes of dist/shared/errors.js, which that daemon code shares with the CLI
//   (instanceof NodeError): they become dist/shared/errors.cjs, which the bundle requires and
//   errors.js re-exports for the ES modules;
// - what oclif loads only to run a CLI from TypeScript sources, and ws's optional native addons.
//
// The tsc output of the commands stays in dist/: oclif's manifest names their files, and the
// bundle answers the imports of those paths with its own copies. The loader of the bundle,
// dist/cli/cli-bundle.js, is also written as CommonJS, dist/cli/cli-loader.cjs, for bin/run.js:
// with no ES module on its way a call never starts Node's ES module loader (about 4 ms of CPU).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { asciiSource, assertAsciiFile } from './ascii-source.js';
import { ownModuleUrls } from './own-module-urls.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const bundleFile = join(dist, 'cli-bundle.cjs');
const errorsFile = join(dist, 'shared', 'errors.js');
const errorsCommonJsFile = join(dist, 'shared', 'errors.cjs');
const ERRORS_REEXPORT = "export * from './errors.cjs';\n";
const daemonDir = join(dist, 'daemon') + sep;
// What src/cli/cli-bundle.ts expects of the bundle; kept in one place there.
const { BUNDLE_WRAPPER, LOADED_BY_REQUIRE, SHARED_ERRORS_SPECIFIER, commandManifestFile } =
  await import('../dist/cli/cli-bundle.js');
const { withBundleId } = await import('../dist/shared/bundle-script.js');

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

// Each module of @oclif/core requires at its top every module it may use, so its index pulled
// in about 90 modules (help, templates, glob matching for plugin discovery, spinners, and with
// them child_process, perf_hooks and readline) on every call, while a command with a manifest
// uses a fraction of them. The build turns each top-level `const x = require("...")` of oclif's
// compiled files whose value is an object (oclif's own modules, the built-ins and packages whose
// exports are an object, and `__importDefault`/`__importStar` of anything) into a stand-in that
// requires the module when a property of it is first used; what oclif does is unchanged, only
// the time a module runs moves. The build fails if oclif's compiled form stops matching, rather
// than quietly losing this.
const DEFERRED_MODULE = 'node-cli:deferred-require';
const DEFERRED_SOURCE = `
exports.deferred = (load) => {
  let loaded;
  const target = () => (loaded ??= load());
  return new Proxy({}, {
    get: (_, key) => target()[key],
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => key in target(),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
};`;
const TOP_LEVEL_REQUIRE =
  /^(const|var|let) (\w+) = (?:(__importDefault|__importStar)\(require\(("[^"]+")\)\)|require\(("[^"]+")\));$/gm;
const INDEX_NAMESPACE = /^exports\.(\w+) = __importStar\(require\(("\.\/[^"]+")\)\);$/gm;
let deferringModules = 0;

/** Whether `specifier`, required from `file`, gives an object (a stand-in cannot be called). */
function exportsObject(file, specifier) {
  // oclif's own modules are TypeScript's output: their exports are an object.
  if (/^\.{1,2}\//.test(specifier)) return true;
  const exported = createRequire(file)(specifier);
  return typeof exported === 'object' && exported !== null;
}

/** oclif module `text` (at `file`) with its top-level requires deferred. */
function deferRequires(file, text) {
  const deferred = text
    .replace(TOP_LEVEL_REQUIRE, (line, keyword, name, wrapper, wrapped, bare) => {
      if (bare !== undefined && !exportsObject(file, JSON.parse(bare))) return line;
      const load = wrapper === undefined ? `require(${bare})` : `${wrapper}(require(${wrapped}))`;
      return `${keyword} ${name} = __deferred(() => ${load});`;
    })
    // The index's namespaces (Args, Errors, Flags, Parser, ...) become getters.
    .replace(
      INDEX_NAMESPACE,
      (_, name, specifier) =>
        `Object.defineProperty(exports, "${name}", { enumerable: true, get: () => __importStar(require(${specifier})) });`,
    );
  if (deferred === text) return text;
  deferringModules += 1;
  return `const { deferred: __deferred } = require("${DEFERRED_MODULE}");\n${deferred}`;
}

/**
 * Edits of oclif's compiled files, each found exactly once or the build fails (rather than
 * quietly losing it): the file (under @oclif/core/lib/), the text and its replacement.
 */
const OCLIF_EDITS = [
  // oclif sorts the commands of each plugin with localeCompare on every call, and the first
  // localeCompare of a process sets up ICU's collator: about 5 ms, a tenth of a short call.
  // For ids of lowercase letters, ':' and '-' (all of ours and the plugins') the code-point
  // order is the collator's; other ids keep localeCompare.
  {
    file: 'config/plugin.js',
    text: '.sort((a, b) => a.id.localeCompare(b.id))',
    replacement: `.sort((a, b) => {
  const ordinal = /^[a-z:-]*$/;
  if (!ordinal.test(a.id) || !ordinal.test(b.id)) return a.id.localeCompare(b.id);
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
})`,
  },
  // Config.load asks wsl-utils whether this is WSL; its `isWsl` is is-wsl's answer, and
  // wsl-utils itself loads child_process, fs/promises and PowerShell helpers at its top. The
  // build checks that both name the same is-wsl.
  {
    file: 'util/os.js',
    text: "(await import('wsl-utils')).isWsl",
    replacement: "(await import('is-wsl')).default",
    check: (file) => {
      const fromOclif = createRequire(file).resolve('is-wsl');
      const fromWslUtils = createRequire(createRequire(file).resolve('wsl-utils')).resolve(
        'is-wsl',
      );
      if (fromOclif !== fromWslUtils) throw new Error(`${file}: wsl-utils has its own is-wsl`);
    },
  },
  // The user's theme file (~/.config/node-cli/theme.json) was the one file a call read
  // asynchronously, and the first asynchronous file operation starts libuv's four worker
  // threads (about 1 ms of CPU); it is read synchronously, with the same answer (its JSON, or
  // nothing when it is missing or unreadable).
  {
    file: 'config/config.js',
    text: '(0, fs_1.safeReadJson)(userThemeFile)',
    replacement:
      '(() => { try { return JSON.parse(require("node:fs").readFileSync(userThemeFile, "utf8")); } catch { return undefined; } })()',
  },
  // Config.runCommand hands its Config to the command's static run, which loads a new Config
  // from it (the same options and plugins) in case the command was built against another
  // version of oclif: every call loaded its Config twice. The one in the bundle is this version,
  // so the command takes the Config as it is, as oclif itself did up to 4.8.3 for a Config of
  // its own version.
  {
    file: 'config/config.js',
    text: 'if (isConfig(opts)) {',
    replacement:
      'if (isConfig(opts) && opts._base === BASE) return opts;\n        if (isConfig(opts)) {',
  },
  // Every run asks the help module (help/index.js) for the help flags and to normalise argv:
  // functions it re-exports from help/util.js, while loading it builds the help classes and
  // loads their formatting (wrap-ansi, string-width and more). main.js takes them from
  // help/util.js; help/index.js still comes when help is shown. The build checks that they are
  // the same functions.
  {
    file: 'main.js',
    text: 'const help_1 = require("./help");',
    replacement: 'const help_1 = require("./help");\nconst help_util_1 = require("./help/util");',
    check: (file) => {
      const help = createRequire(file)('./help');
      const helpUtil = createRequire(file)('./help/util');
      for (const name of ['getHelpFlagAdditions', 'normalizeArgv']) {
        if (help[name] !== helpUtil[name]) throw new Error(`${file}: help.${name} moved`);
      }
    },
  },
  {
    file: 'main.js',
    text: '(0, help_1.getHelpFlagAdditions)',
    replacement: '(0, help_util_1.getHelpFlagAdditions)',
  },
  {
    file: 'main.js',
    text: '(0, help_1.normalizeArgv)',
    replacement: '(0, help_util_1.normalizeArgv)',
  },
];

/** oclif's compiled `text` of `file` with the edits of OCLIF_EDITS for it made. */
function editOclif(file, text) {
  let edited = text;
  for (const edit of OCLIF_EDITS) {
    if (!file.split(sep).join('/').endsWith(`/@oclif/core/lib/${edit.file}`)) continue;
    if (edited.split(edit.text).length !== 2) throw new Error(`${file}: "${edit.text}" changed`);
    edit.check?.(file);
    edited = edited.replace(edit.text, edit.replacement);
    edit.made = true;
  }
  return edited;
}

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
    plugin.onResolve({ filter: new RegExp(`^${DEFERRED_MODULE}$`) }, () => ({
      path: DEFERRED_MODULE,
      namespace: DEFERRED_MODULE,
    }));
    plugin.onLoad({ filter: /.*/, namespace: DEFERRED_MODULE }, () => ({
      contents: DEFERRED_SOURCE,
      loader: 'js',
    }));
    plugin.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      return {
        contents: deferRequires(args.path, editOclif(args.path, text)),
        resolveDir: dirname(args.path),
      };
    });
    ownModuleUrls(dist).setup(plugin);
  },
};

// The error classes as CommonJS, re-exported by errors.js (see the head of this file). A second
// run after tsc finds errors.js already re-exporting and leaves both as they are.
if (readFileSync(errorsFile, 'utf8') !== ERRORS_REEXPORT) {
  await build({
    entryPoints: [errorsFile],
    outfile: errorsCommonJsFile,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
  writeFileSync(errorsFile, ERRORS_REEXPORT);
  rmSync(`${errorsFile}.map`, { force: true });
}

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

for (const edit of OCLIF_EDITS) {
  if (!edit.made) throw new Error(`@oclif/core/lib/${edit.file} is gone: its edit was not made`);
}
if (deferringModules < 50) {
  throw new Error(
    `only ${deferringModules} of oclif's modules had requires to defer: its form changed`,
  );
}

// Each `import(` becomes a call of the loader's `__import` (see src/cli/cli-bundle.ts). Found
// in the syntax tree, so strings and comments that mention import( stay as they are. The file
// is written as the function expression the loader compiles (BUNDLE_WRAPPER).
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
writeFileSync(
  bundleFile,
  withBundleId(
    asciiSource(`${BUNDLE_WRAPPER.head}${rewritten}${output.slice(copied)}${BUNDLE_WRAPPER.tail}`),
  ),
);
assertAsciiFile(bundleFile);
rmSync(join(dist, 'vendor'), { recursive: true, force: true });
console.log(
  `bundled dist/cli-bundle.cjs (${entryModules.length} commands and hooks, ${importStarts.length} dynamic imports routed)`,
);

await build({
  entryPoints: [join(dist, 'cli', 'cli-bundle.js')],
  outfile: join(dist, 'cli', 'cli-loader.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  plugins: [ownModuleUrls(join(dist, 'cli'))],
  logLevel: 'warning',
});

// A call of a known command reads that command's part of oclif.manifest.json alone.
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
rmSync(dirname(commandManifestFile('rpc')), { recursive: true, force: true });
mkdirSync(dirname(commandManifestFile('rpc')));
for (const [id, command] of Object.entries(manifest.commands)) {
  const own = { version: manifest.version, commands: { [id]: command } };
  writeFileSync(commandManifestFile(id.replaceAll(':', ' ')), JSON.stringify(own));
}

execFileSync(process.execPath, [join(root, 'scripts', 'cli-code-cache.js')], { stdio: 'inherit' });
