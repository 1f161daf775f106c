/**
 * The built CLI is one bundle with a V8 code cache (scripts/bundle-cli.js): these tests read
 * `dist/`, which `npm test` builds first. They fail if V8 refuses the cache the build made (every
 * call would compile the bundle again, silently slower), if a command or hook of the manifest is
 * not answered from the bundle (oclif would import its tsc file, with a second copy of oclif and
 * the client), or if a call to one of our commands starts loading the plugins again, or, without
 * a help flag, the whole manifest instead of that command's part. They also hold a call of a
 * known command to what it needs (no ES module loader, none of oclif's modules it does not use)
 * and the bundle to the one copy of the shared error classes that daemon code imports too.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCliExecutable } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNNER = `${ROOT}dist/cli/cli-bundle.js`;

/** Runs an ES module snippet with Node in a child process; resolves with its JSON output. */
function runModule(code: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '--eval', code],
      { timeout: 30_000, cwd: ROOT },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(JSON.parse(stdout)),
    );
  });
}

const manifest = JSON.parse(readFileSync(`${ROOT}oclif.manifest.json`, 'utf8')) as {
  commands: Record<string, { relativePath: string[] }>;
};
const pjson = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  oclif: { plugins: string[]; hooks: Record<string, string> };
};

describe('CLI bundle', () => {
  it('is compiled from its code cache and holds every command and hook', async () => {
    const loaded = (await runModule(`
      import { loadCliBundle } from ${JSON.stringify(RUNNER)};
      const { exports, script } = loadCliBundle();
      console.log(JSON.stringify({
        cacheRejected: script.cachedDataRejected,
        modules: Object.keys(exports.bundledModules),
        commandIds: exports.commandIds,
      }));
    `)) as { cacheRejected: boolean; modules: string[]; commandIds: string[] };

    expect(loaded.cacheRejected).toBe(false);
    const commandFiles = Object.values(manifest.commands).map((command) =>
      command.relativePath.slice(1).join('/'),
    );
    const hookFiles = Object.values(pjson.oclif.hooks).map((path) => path.replace('./dist/', ''));
    expect(loaded.modules.sort()).toEqual([...commandFiles, ...hookFiles].sort());
    const ids = Object.keys(manifest.commands).map((id) => id.replaceAll(':', ' '));
    expect(loaded.commandIds.sort()).toEqual(ids.sort());
  });

  it('loads the plugins only for command lines that may need them, one command without help', async () => {
    const lines = [
      ['rpc', 'eth_blockNumber'],
      ['block', 'get', '--json'],
      ['block', 'get', '--help'],
      ['rpc', '-h'],
      ['rpc', '--', '--help'],
      [],
      ['--help'],
      ['help'],
      ['block'],
      ['block', 'gt'],
    ];
    // What each load option amounts to: the root, or the plugins of package.json and the
    // commands of the plugins handed to oclif.
    const options = (await runModule(`
      import { loadCliBundle, loadOptionsFor } from ${JSON.stringify(RUNNER)};
      const { exports } = loadCliBundle();
      const lines = ${JSON.stringify(lines)};
      const options = await Promise.all(lines.map((argv) => loadOptionsFor(argv, exports)));
      console.log(JSON.stringify(options.map((option) => typeof option === 'string' ? option : {
        plugins: option.pjson.oclif.plugins,
        commands: option.plugins && [...option.plugins.values()].flatMap((plugin) => plugin.commandIDs),
      })));
    `)) as (string | { plugins: string[]; commands?: string[] })[];

    expect(pjson.oclif.plugins.length).toBeGreaterThan(0);
    expect(options.slice(0, 5)).toEqual([
      { plugins: [], commands: ['rpc'] },
      { plugins: [], commands: ['block:get'] },
      { plugins: [] },
      { plugins: [] },
      { plugins: [], commands: ['rpc'] },
    ]);
    for (const other of options.slice(5)) expect(other).toBe(ROOT);
  });

  it('requires the shared error classes that the ES modules of dist/ re-export', async () => {
    const bundle = readFileSync(`${ROOT}dist/cli-bundle.cjs`, 'utf8');
    expect(bundle).toContain('require("./shared/errors.cjs")');
    expect(bundle).not.toMatch(/\bclass NodeError\b/);
    const same = await runModule(`
      import { createRequire } from 'node:module';
      import { NodeError } from ${JSON.stringify(`${ROOT}dist/shared/errors.js`)};
      const required = createRequire(${JSON.stringify(`${ROOT}dist/cli-bundle.cjs`)})('./shared/errors.cjs');
      console.log(JSON.stringify(required.NodeError === NodeError));
    `);
    expect(same).toBe(true);
  });

  it('runs a known command without the ES module loader or the parts of oclif it does not use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-bundle-'));
    const preload = join(dir, 'loaded-modules.cjs');
    // Node's own record of the built-in modules the process loaded, written as it exits.
    writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeSync(2, '\\nLOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'));",
    );
    try {
      for (const argv of [
        ['block', 'get', '--bogus'],
        ['rpc', 'eth_blockNumber', '--datadir', dir],
      ]) {
        // As a user runs it: under jest's NODE_ENV=test oclif also looks for TypeScript sources.
        const { stderr } = await runCliExecutable(argv, {
          NODE_OPTIONS: `--require ${preload}`,
          NODE_ENV: undefined,
        });
        const loaded = JSON.parse(/^LOADED (.*)$/m.exec(stderr)![1]) as string[];
        expect(loaded).toContain('NativeModule vm');
        for (const unused of ['internal/modules/esm/module_job', 'perf_hooks', 'readline']) {
          expect(loaded).not.toContain(`NativeModule ${unused}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
