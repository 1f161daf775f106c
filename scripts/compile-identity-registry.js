#!/usr/bin/env node
// Compiles contracts/IdentityRegistry.sol with the pinned `solc` npm package and writes the
// artifact the daemon deploys, src/daemon/identity/identity-registry.json: { abi, bytecode,
// deployedBytecode } (0x-hex). Same deterministic settings as scripts/compile-contracts.js.
// With --check it writes nothing and exits 1 when the committed artifact differs from what the
// source compiles to (a unit test runs this).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const sourceFile = fileURLToPath(new URL('../contracts/IdentityRegistry.sol', import.meta.url));
const artifactFile = fileURLToPath(
  new URL('../src/daemon/identity/identity-registry.json', import.meta.url),
);

const input = {
  language: 'Solidity',
  sources: { 'IdentityRegistry.sol': { content: readFileSync(sourceFile, 'utf8') } },
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
for (const entry of output.errors ?? []) console.error(entry.formattedMessage);
if ((output.errors ?? []).some((entry) => entry.severity === 'error')) process.exit(1);

const contract = output.contracts['IdentityRegistry.sol'].IdentityRegistry;
const artifact = `${JSON.stringify(
  {
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  },
  null,
  2,
)}\n`;

if (process.argv.includes('--check')) {
  if (readFileSync(artifactFile, 'utf8') !== artifact) {
    console.error(`${artifactFile} differs from what contracts/IdentityRegistry.sol compiles to`);
    process.exit(1);
  }
} else {
  writeFileSync(artifactFile, artifact);
  console.log(`identity-registry.json (solc ${solc.version()})`);
}
