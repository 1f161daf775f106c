// The ERC-20 the benchmark deploys: the shared test fixture compiled from
// test/fixtures/contracts/Token.sol (constructor mints the whole supply to the deployer).
import { readFileSync } from 'node:fs';
import { Interface } from 'ethers';

const artifact = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/contracts/Token.json', import.meta.url), 'utf8'),
);

export const tokenInterface = new Interface(artifact.abi);
export const TOKEN_BYTECODE = artifact.bytecode;
export const TRANSFER_TOPIC = tokenInterface.getEvent('Transfer').topicHash;

/** Creation code with the ABI-encoded `supply` constructor argument appended. */
export function deploymentData(supply) {
  return TOKEN_BYTECODE + tokenInterface.encodeDeploy([supply]).slice(2);
}

/** Call data of `transfer(to, value)`. */
export function transferData(to, value) {
  return tokenInterface.encodeFunctionData('transfer', [to, value]);
}

/** Call data of `balanceOf(owner)`. */
export function balanceOfData(owner) {
  return tokenInterface.encodeFunctionData('balanceOf', [owner]);
}
