#!/usr/bin/env node
// Writes oclif.manifest.json after the build, so the CLI imports only the command it runs
// instead of every command module (which made each invocation load ethers, the daemon's
// config, ... whatever any command needed).
import { Config } from '@oclif/core';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = fileURLToPath(new URL('../oclif.manifest.json', import.meta.url));
rmSync(target, { force: true });
const config = await Config.load({ root, ignoreManifest: true });
const plugin = config.plugins.get(config.pjson.name);
writeFileSync(target, `${JSON.stringify(plugin.manifest, null, 2)}\n`);
console.log(`wrote oclif.manifest.json (${Object.keys(plugin.manifest.commands).length} commands)`);
