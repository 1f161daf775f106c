#!/bin/sh
':' //; [ -n "$NODE_EXTRA_CA_CERTS" ] && export NODE_CLI_DEFERRED_CA_CERTS="$NODE_EXTRA_CA_CERTS" && unset NODE_EXTRA_CA_CERTS; exec node "$0" "$@"
// The line above is a shell command and, for JavaScript, a string and a comment. Run as an
// executable, this file starts in sh, which moves NODE_EXTRA_CA_CERTS out of Node's sight:
// Node 20 parses that file at start-up (about 30 ms), while most calls talk http:// to a local
// daemon. src/client/tls-trust.ts hands the certificates to the TLS connections that need them,
// and to the processes the CLI starts. `node bin/run.js` skips sh and keeps Node's own loading.
//
// bin/package.json makes this file CommonJS, as is the loader it requires
// (dist/cli/cli-loader.cjs): a call that meets no ES module never starts Node's ES module
// loader, about 4 ms of CPU.

// `--version` is answered before anything else loads: scripts and shells call it often.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  const { readFileSync } = require('node:fs');
  const { version } = JSON.parse(readFileSync(`${__dirname}/../package.json`, 'utf8'));
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
// (scripts/bundle-cli.js); the loader (src/cli/cli-bundle.ts) compiles and runs it.
require('../dist/cli/cli-loader.cjs').runCli(process.argv.slice(2));
