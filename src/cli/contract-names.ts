/**
 * Names for the addresses of a trace: the contracts of the node's registry (REST `/contracts`)
 * and the ABI files given with `--abi`, to show calls, errors and logs by their ABI names.
 */
import { Interface, type ErrorDescription, type InterfaceAbi, type LogDescription } from 'ethers';
import type { RestClient } from '../client/rest-client.js';
import { loadAbi } from './event-abi.js';

interface NamedContract {
  name: string;
  abi: Interface;
}

export interface DecodedCall {
  /** `Contract.method` or the bare selector. */
  label: string;
  args: string;
}

/** An ABI value as people read it: numbers in decimal, lists in brackets. */
function show(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  return String(value);
}

export class ContractNames {
  private readonly byAddress = new Map<string, NamedContract>();
  /** ABIs from --abi files, tried for any address the registry does not name. */
  private readonly files: Interface[] = [];

  /** Reads the registry's named contracts; a node without REST just names none. */
  static async load(
    rest: RestClient | undefined,
    abiFiles: readonly string[],
  ): Promise<ContractNames> {
    const names = new ContractNames();
    for (const file of abiFiles) names.files.push(loadAbi(file));
    if (rest === undefined) return names;
    for (const summary of await rest.contracts()) {
      if (summary.address === null) continue;
      const instance = await rest.contract(summary.name);
      names.byAddress.set(summary.address.toLowerCase(), {
        name: summary.name,
        abi: new Interface(instance.abi.flat() as InterfaceAbi),
      });
    }
    return names;
  }

  /** The registry's name of `address`, if it has one. */
  nameOf(address: string | undefined): string | undefined {
    return address === undefined ? undefined : this.byAddress.get(address.toLowerCase())?.name;
  }

  private abisFor(address: string | undefined): Array<{ name?: string; abi: Interface }> {
    const named = address === undefined ? undefined : this.byAddress.get(address.toLowerCase());
    return [...(named === undefined ? [] : [named]), ...this.files.map((abi) => ({ abi }))];
  }

  /** The function `input` calls on `address`, by name when an ABI knows its selector. */
  decodeCall(address: string | undefined, input: string): DecodedCall | undefined {
    for (const { abi } of this.abisFor(address)) {
      try {
        const parsed = abi.parseTransaction({ data: input });
        if (parsed !== null) {
          return { label: parsed.name, args: parsed.args.toArray().map(show).join(', ') };
        }
      } catch {
        // Arguments that do not fit the function: shown undecoded.
      }
    }
    return undefined;
  }

  /** `Contract.function` (or the function) of `selector` in any ABI known. */
  functionOf(selector: string): string | undefined {
    const all = [
      ...this.byAddress.values(),
      ...this.files.map((abi) => ({ name: undefined, abi })),
    ];
    for (const { name, abi } of all) {
      const fragment = abi.getFunction(selector);
      if (fragment !== null) return name === undefined ? fragment.name : `${name}.${fragment.name}`;
    }
    return undefined;
  }

  /** The custom error of revert data `output` from `address`, when an ABI knows it. */
  decodeError(address: string | undefined, output: string): ErrorDescription | undefined {
    for (const { abi } of this.abisFor(address)) {
      try {
        const parsed = abi.parseError(output);
        if (parsed !== null) return parsed;
      } catch {
        // Not this ABI's error.
      }
    }
    return undefined;
  }

  /** The event of a log of `address`, when an ABI knows it. */
  decodeLog(address: string, topics: string[], data: string): LogDescription | undefined {
    for (const { abi } of this.abisFor(address)) {
      try {
        const parsed = abi.parseLog({ topics, data });
        if (parsed !== null) return parsed;
      } catch {
        // Not this ABI's event.
      }
    }
    return undefined;
  }
}
