/**
 * What the `contract` and `identity` commands share: parameters from the command line, and
 * results and mined transactions as readable lines.
 */
import { Interface, type InterfaceAbi } from 'ethers';
import type { RestAbiEntry, SentTransaction } from '../shared/rest-api.js';
import { JsonInputError } from './json-input.js';

/**
 * Command-line parameters as the REST body takes them: strings as given, except that a value
 * starting with `[` is JSON (an array or tuple parameter).
 */
export function cliParams(values: readonly string[]): unknown[] {
  return values.map((value, index) => {
    if (!value.startsWith('[')) return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw new JsonInputError(`parameter ${index + 1} starts with [ but is not JSON: ${value}`);
    }
  });
}

/**
 * `results` of `method` as lines `<name or index> (<type>): <value>`, the output names and
 * types read from `abi` (the nested form the node answers); arrays and tuples as JSON.
 */
export function resultLines(abi: RestAbiEntry[][], method: string, results: unknown[]): string[] {
  const iface = new Interface(abi.flat() as InterfaceAbi);
  const fragment = iface.getFunction(method);
  return results.map((value, index) => {
    const output = fragment?.outputs[index];
    const label = output ? `${output.name || index} (${output.type})` : String(index);
    return `${label}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
  });
}

/** A mined transaction in one line. */
export function sentLine(sent: SentTransaction): string {
  return `mined in block ${sent.blockNumber}: ${sent.transactionHash} (status ${sent.status}, gas ${sent.gasUsed})`;
}
