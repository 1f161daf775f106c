#!/usr/bin/env node
// `--version` is answered before anything else loads: scripts and shells call it often.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  const { readFileSync } = await import('node:fs');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(
    `node-cli/${version} ${process.platform}-${process.arch} node-${process.version}\n`,
  );
  process.exit(0);
}

// A reader that went away (`node-cli events tail --json | head -n 1`) ends the command quietly
// with status 0, as `yes | head` does; oclif would otherwise swallow EPIPE and stream on forever.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
});

// @oclif/core bundled into one file at build time (scripts/bundle-cli.js): loading the package's
// files one by one took half of a short command's run.
const { execute } = await import('../dist/vendor/oclif-core.js');
await execute({ dir: import.meta.url });
