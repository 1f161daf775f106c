// An esbuild plugin shared by the CommonJS bundles of the build (scripts/bundle-cli.js,
// scripts/bundle-daemon.js).
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

/**
 * A CommonJS bundle has no import.meta: a module's own URL is rebuilt from the folder of the
 * bundle written to `outDir`, so the files it looks for (package.json, the daemon entry) are
 * found wherever the package is installed.
 * @returns {import('esbuild').Plugin}
 */
export function ownModuleUrls(outDir) {
  return {
    name: 'own-module-urls',
    setup(plugin) {
      plugin.onLoad({ filter: /\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const own = `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${JSON.stringify(relative(outDir, args.path))})).href`;
        return {
          contents: text.replaceAll('import.meta.url', own),
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}
