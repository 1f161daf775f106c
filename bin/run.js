#!/usr/bin/env node
import { execute } from '@oclif/core';

// A reader that went away (`node-cli events tail --json | head -n 1`) ends the command quietly
// with status 0, as `yes | head` does; oclif would otherwise swallow EPIPE and stream on forever.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
});

await execute({ dir: import.meta.url });
