#!/usr/bin/env node
// Compiles the Solidity test fixtures in test/fixtures/contracts/*.sol and writes one
// test/fixtures/contracts/<Name>.json per contract (see solidity-artifacts.js for the format and
// the fixed compiler settings). Run it after editing a source: `node scripts/compile-contracts.js`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileArtifacts, solcVersion } from './solidity-artifacts.js';

const contractsDir = fileURLToPath(new URL('../test/fixtures/contracts/', import.meta.url));
const sourceNames = readdirSync(contractsDir)
  .filter((name) => name.endsWith('.sol'))
  .sort();

const artifacts = compileArtifacts(
  Object.fromEntries(sourceNames.map((name) => [name, readFileSync(contractsDir + name, 'utf8')])),
);
for (const contracts of Object.values(artifacts)) {
  for (const [contractName, artifact] of Object.entries(contracts)) {
    writeFileSync(`${contractsDir}${contractName}.json`, artifact);
    console.log(`${contractName}.json (solc ${solcVersion()})`);
  }
}
