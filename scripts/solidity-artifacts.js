// Compiles Solidity sources with the `solc` npm package (the version pinned in package-lock.json)
// into the artifacts this project keeps: { abi, bytecode, deployedBytecode }, the bytecode as
// 0x-prefixed hex, as JSON text with two-space indentation and a trailing newline. The compiler
// settings are fixed (optimizer 200 runs, EVM version prague, no metadata hash appended), so the
// output is deterministic. Exits 1, printing the compiler's errors, when a source does not
// compile.
import solc from 'solc';

/**
 * @param {Record<string, string>} sources source name → Solidity text
 * @returns {Record<string, Record<string, string>>} source name → contract name → artifact text
 */
export function compileArtifacts(sources) {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(
      Object.entries(sources).map(([name, content]) => [name, { content }]),
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
  for (const entry of output.errors ?? []) console.error(entry.formattedMessage);
  if ((output.errors ?? []).some((entry) => entry.severity === 'error')) process.exit(1);
  return Object.fromEntries(
    Object.keys(sources).map((sourceName) => [
      sourceName,
      Object.fromEntries(
        Object.entries(output.contracts[sourceName] ?? {}).map(([contractName, contract]) => [
          contractName,
          `${JSON.stringify(
            {
              abi: contract.abi,
              bytecode: `0x${contract.evm.bytecode.object}`,
              deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
            },
            null,
            2,
          )}\n`,
        ]),
      ),
    ]),
  );
}

export const solcVersion = () => solc.version();
