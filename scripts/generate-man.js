#!/usr/bin/env node
// Writes man/*.1 from the built commands' metadata (`npm run man`). With --check it writes
// nothing and exits 1, naming the stale pages, when man/ differs from what it would write.
import { Config } from '@oclif/core';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderAllManPages } from '../dist/cli/man-page.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const manDir = fileURLToPath(new URL('../man/', import.meta.url));
const config = await Config.load({ root });
const pages = renderAllManPages(config);
const shipped = existsSync(manDir) ? readdirSync(manDir).filter((name) => name.endsWith('.1')) : [];

if (process.argv.includes('--check')) {
  const stale = [
    ...shipped.filter((name) => !pages.has(name)).map((name) => `${name} (no such command)`),
    ...[...pages]
      .filter(
        ([name, content]) =>
          !existsSync(manDir + name) || readFileSync(manDir + name, 'utf8') !== content,
      )
      .map(([name]) => name),
  ];
  if (stale.length > 0) {
    console.error(`man pages out of date (run npm run man): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log(`${pages.size} man pages up to date`);
} else {
  mkdirSync(manDir, { recursive: true });
  for (const name of shipped) if (!pages.has(name)) rmSync(manDir + name);
  for (const [name, content] of pages) writeFileSync(manDir + name, content);
  console.log(`wrote ${pages.size} man pages to man/`);
}
