/**
 * The named contracts the REST interface calls by name: the node's built-in ones (the identity
 * registry), the ones registered with `POST /contracts`, kept in
 * `<datadir>/contracts/registry.json` (`{"<name>": {"address", "abi"}}`, written atomically),
 * and ABI files an operator drops into `<datadir>/contracts/`: `<name>.json` holding either an
 * ABI array or a compiled artifact `{abi, address?}` (Hardhat, Foundry and solc-js output all
 * have `abi`). Dropped files are read at each lookup, so a new file needs no restart. A name is
 * found in that order: built-in, registered, dropped file. A contract is also found by address
 * (any case), among those that have one.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checksumAddress } from '../../shared/address.js';
import { writeFileAtomic } from '../../shared/atomic-write.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../shared/errors.js';
import { CONTRACT_NAME_PATTERN } from '../../shared/rest-api.js';
import { parseAbi, type AbiEntry } from './contract-abi.js';

/** A named contract. `address` is null for a dropped ABI file that names none. */
export interface NamedContract {
  name: string;
  address: string | null;
  abi: AbiEntry[];
  source: 'built-in' | 'registered' | 'file';
}

/** A contract the node provides itself; its address may need work (a deployment) to learn. */
export interface BuiltInContract {
  name: string;
  abi: AbiEntry[];
  address(): Promise<string>;
}

/** The file of registered contracts; never read as a dropped ABI file. */
export const REGISTRY_FILE = 'registry.json';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

type RegisteredFile = Record<string, { address: string; abi: AbiEntry[] }>;

export class ContractRegistry {
  private readonly registryFile: string;

  /** @param dir `<datadir>/contracts`, made when the first contract is registered. */
  constructor(
    private readonly dir: string,
    private readonly builtIns: readonly BuiltInContract[],
  ) {
    this.registryFile = join(dir, REGISTRY_FILE);
  }

  /**
   * The contract named `nameOrAddress`, or the one at that address.
   *
   * @throws NotFoundError when there is none.
   */
  async get(nameOrAddress: string): Promise<NamedContract> {
    if (ADDRESS.test(nameOrAddress)) {
      const address = checksumAddress(nameOrAddress);
      const found = (await this.list()).find((contract) => contract.address === address);
      if (found) return found;
    } else {
      const builtIn = this.builtIns.find((contract) => contract.name === nameOrAddress);
      if (builtIn) return this.builtInContract(builtIn);
      // Own keys only: a name such as `toString` or `__proto__` is no registered contract.
      const registry = this.registered();
      if (Object.hasOwn(registry, nameOrAddress)) {
        return { name: nameOrAddress, ...registry[nameOrAddress], source: 'registered' };
      }
      if (this.fileNames().includes(nameOrAddress)) return this.readFile(nameOrAddress);
    }
    throw new NotFoundError(`contract ${nameOrAddress} not found`);
  }

  /**
   * Every named contract, built-in ones first. A dropped file that cannot be read as an ABI is
   * left out here and refused by name (with the reason) when asked for.
   */
  async list(): Promise<NamedContract[]> {
    const builtIns = await Promise.all(this.builtIns.map((c) => this.builtInContract(c)));
    const registered = Object.entries(this.registered()).map(
      ([name, { address, abi }]): NamedContract => ({ name, address, abi, source: 'registered' }),
    );
    const taken = new Set(registered.map((contract) => contract.name));
    const files: NamedContract[] = [];
    for (const name of this.fileNames()) {
      if (taken.has(name)) continue;
      try {
        files.push(this.readFile(name));
      } catch {
        // Told when the file is asked for by name.
      }
    }
    return [...builtIns, ...registered, ...files];
  }

  /**
   * Registers (or re-registers) `name` at `address`.
   *
   * @throws ConflictError when `name` is built in or a dropped file's.
   */
  add(name: string, address: string, abi: AbiEntry[]): NamedContract {
    if (this.builtIns.some((contract) => contract.name === name)) {
      throw new ConflictError(`name: ${name} is a built-in contract`);
    }
    if (this.fileNames().includes(name)) {
      throw new ConflictError(`name: ${name} is the ABI file ${join(this.dir, `${name}.json`)}`);
    }
    const registered = this.registered();
    registered[name] = { address: checksumAddress(address), abi };
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(this.registryFile, `${JSON.stringify(registered, null, 2)}\n`);
    return { name, address: registered[name].address, abi, source: 'registered' };
  }

  private async builtInContract(contract: BuiltInContract): Promise<NamedContract> {
    return {
      name: contract.name,
      address: await contract.address(),
      abi: contract.abi,
      source: 'built-in',
    };
  }

  private registered(): RegisteredFile {
    if (!existsSync(this.registryFile)) return {};
    return JSON.parse(readFileSync(this.registryFile, 'utf8')) as RegisteredFile;
  }

  /** Names of the dropped ABI files. */
  private fileNames(): string[] {
    if (!existsSync(this.dir)) return [];
    const pattern = new RegExp(CONTRACT_NAME_PATTERN);
    return readdirSync(this.dir)
      .filter((file) => file.endsWith('.json') && file !== REGISTRY_FILE)
      .map((file) => file.slice(0, -'.json'.length))
      .filter((name) => pattern.test(name))
      .sort();
  }

  private readFile(name: string): NamedContract {
    const path = join(this.dir, `${name}.json`);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new InvalidInputError(`ABI file ${path} is not JSON: ${(error as Error).message}`);
    }
    const artifact = Array.isArray(json) ? { abi: json } : (json as Record<string, unknown>);
    const address = artifact.address;
    if (address !== undefined && (typeof address !== 'string' || !ADDRESS.test(address))) {
      throw new InvalidInputError(`ABI file ${path}: address must be 0x and 40 hex digits`);
    }
    return {
      name,
      address: address === undefined ? null : checksumAddress(address),
      abi: parseAbi(artifact.abi, `ABI file ${path}`),
      source: 'file',
    };
  }
}
