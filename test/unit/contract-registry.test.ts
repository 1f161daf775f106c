/**
 * Name lookups of the contract registry: only names registered (or built in, or dropped as
 * files) are found; names that every JavaScript object answers (`toString`, `constructor`,
 * `__proto__`) are unknown contracts like any other, a 404 rather than a crash in the ABI code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Interface } from 'ethers';
import type { AbiEntry } from '../../src/daemon/contracts/contract-abi.js';
import { ContractRegistry } from '../../src/daemon/contracts/contract-registry.js';
import { NotFoundError } from '../../src/shared/errors.js';

const abi = JSON.parse(
  new Interface(['function get() view returns (uint256)']).formatJson(),
) as AbiEntry[];
const address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('ContractRegistry.get', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contract-registry-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['toString', 'constructor', 'hasOwnProperty', 'valueOf', '__proto__'])(
    'refuses %s, a name nobody registered, as not found (a registry file exists)',
    async (name) => {
      const registry = new ContractRegistry(join(dir, 'contracts'), []);
      registry.add('Token', address, abi);
      await expect(registry.get(name)).rejects.toThrow(NotFoundError);
      await expect(registry.get(name)).rejects.toThrow(`contract ${name} not found`);
    },
  );

  it('finds a contract registered under a name objects also have', async () => {
    const registry = new ContractRegistry(join(dir, 'contracts'), []);
    registry.add('constructor', address, abi);
    const found = await registry.get('constructor');
    expect(found).toEqual({ name: 'constructor', address, abi, source: 'registered' });
  });
});
