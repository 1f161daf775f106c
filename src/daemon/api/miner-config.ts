/**
 * The miner methods that change the node's settings rather than do nothing: the validator's
 * reward address (at once) and the minimum gas price (in the config file, for the next start;
 * a `--minimum-gas-prices` flag or environment variable still wins then, as the spec says).
 * Passed to `minerNamespace(extra)`.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../shared/atomic-write.js';
import { minimumGasPriceProblem } from '../../shared/minimum-gas-price.js';
import { InvalidInputError, ServerError } from '../../shared/errors.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { addressSchema, toAddress, uint256Schema } from './hex-schemas.js';
import type { NodeServices } from './services.js';

/** The config-file key miner_setGasPrice writes (the `daemon start` flag's name). */
export const MINIMUM_GAS_PRICES_KEY = 'minimum-gas-prices';

/**
 * miner_setEtherbase and miner_setGasPrice.
 *
 * @example minerNamespace(minerConfigMethods(services))
 */
export function minerConfigMethods(
  services: Pick<NodeServices, 'chain' | 'layout' | 'logger'>,
): MethodDefinition[] {
  return [
    defineMethod<[string]>({
      name: 'miner_setEtherbase',
      params: [{ name: 'address', schema: addressSchema }],
      handler: ([address]) => {
        services.chain.setCoinbase(toAddress(address));
        services.logger.info('validator reward address changed', { address });
        return true;
      },
    }),
    defineMethod<[string]>({
      name: 'miner_setGasPrice',
      params: [{ name: 'gasPrice', schema: uint256Schema }],
      handler: async ([gasPrice]) => {
        const price = BigInt(gasPrice);
        // The next start would refuse the value, so it is refused before it is written.
        const problem = minimumGasPriceProblem(price);
        if (problem !== undefined) {
          throw new InvalidInputError(`invalid params: argument 0 (gasPrice): ${problem}`);
        }
        await writeConfigValue(services.layout.configFile, MINIMUM_GAS_PRICES_KEY, `${price}`);
        services.logger.info('minimum gas price written for the next start', {
          [MINIMUM_GAS_PRICES_KEY]: `${price}`,
        });
        return true;
      },
    }),
  ];
}

/** Sets one key of the JSON config file, keeping the others; the file is replaced atomically. */
async function writeConfigValue(path: string, key: string, value: string): Promise<void> {
  let current: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ServerError(`cannot read config file ${path}: ${(error as Error).message}`);
    }
  }
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw new ServerError(`config file ${path} is not valid JSON; not changing it`, { cause });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ServerError(`config file ${path} is not a JSON object; not changing it`);
    }
    current = parsed as Record<string, unknown>;
  }
  writeFileAtomic(path, `${JSON.stringify({ ...current, [key]: value }, null, 2)}\n`);
}
