#!/usr/bin/env node
// Compiles the Solidity test fixtures in test/fixtures/contracts/*.sol with the `solc` npm
// package (the version pinned in package-lock.json) and writes one
// test/fixtures/contracts/<Name>.json per contract: { abi, bytecode, deployedBytecode }, the
// bytecode as 0x-prefixed hex.
//
// Output is deterministic: fixed compiler settings (optimizer 200 runs, EVM version prague, no
// metadata hash appended), sources read in sorted order, and JSON written with two-space
// indentation and a trailing newline. Run it after editing a source:
// `node scripts/compile-contracts.js`. Exits 1, printing the compiler's errors, when a source
// does not compile.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const contractsDir = fileURLToPath(new URL('../test/fixtures/contracts/', import.meta.url));
const sourceNames = readdirSync(contractsDir)
  .filter((name) => name.endsWith('.sol'))
  .sort();

const input = {
  language: 'Solidity',
  sources: Object.fromEntries(
    sourceNames.map((name) => [name, { content: readFileSync(contractsDir + name, 'utf8') }]),
  ),
  settings: {
    evmVersion: 'prague',
    optimizer: { enabled: true, runs: 200 },
    metadata: { bytecodeHash: 'none', appendCBOR: false },
    outputSelection: {
      '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
    },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
for (const entry of output.errors ?? []) console.error(entry.formattedMessage);
if (errors.length > 0) process.exit(1);

for (const sourceName of sourceNames) {
  for (const [contractName, contract] of Object.entries(output.contracts[sourceName] ?? {})) {
    const artifact = {
      abi: contract.abi,
      bytecode: `0x${contract.evm.bytecode.object}`,
      deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    };
    writeFileSync(`${contractsDir}${contractName}.json`, `${JSON.stringify(artifact, null, 2)}\n`);
    console.log(`${contractName}.json (solc ${solc.version()})`);
  }
}
