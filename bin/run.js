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

// The whole CLI is one bundle with a V8 code cache, both made at build time
// (scripts/bundle-cli.js); dist/cli/cli-bundle.js loads and runs it.
const { runCli } = await import('../dist/cli/cli-bundle.js');
await runCli(process.argv.slice(2));
