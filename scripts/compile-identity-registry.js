#!/usr/bin/env node
// Compiles contracts/IdentityRegistry.sol and writes the artifact the daemon deploys,
// src/daemon/identity/identity-registry.json (see solidity-artifacts.js for the format and the
// fixed compiler settings). With --check it writes nothing and exits 1 when the committed
// artifact differs from what the source compiles to (a unit test runs this).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileArtifacts, solcVersion } from './solidity-artifacts.js';

const sourceFile = fileURLToPath(new URL('../contracts/IdentityRegistry.sol', import.meta.url));
const artifactFile = fileURLToPath(
  new URL('../src/daemon/identity/identity-registry.json', import.meta.url),
);

const artifact = compileArtifacts({
  'IdentityRegistry.sol': readFileSync(sourceFile, 'utf8'),
})['IdentityRegistry.sol'].IdentityRegistry;

if (process.argv.includes('--check')) {
  if (readFileSync(artifactFile, 'utf8') !== artifact) {
    console.error(`${artifactFile} differs from what contracts/IdentityRegistry.sol compiles to`);
    process.exit(1);
  }
} else {
  writeFileSync(artifactFile, artifact);
  console.log(`identity-registry.json (solc ${solcVersion()})`);
}
