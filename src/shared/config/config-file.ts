/**
 * Changes keys of `<datadir>/config.json` while keeping the others, atomically. Used by
 * `daemon init` and `miner_setGasPrice`, whose changes take effect at the next start.
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-write.js';
import { InvalidInputError } from '../errors.js';
import { findOption } from './options.js';

export function updateConfigFile(
  path: string,
  changes: Record<string, string | number | boolean>,
): void {
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new InvalidInputError(`cannot update config file ${path}: ${(error as Error).message}`);
    }
  }
  for (const [key, value] of Object.entries(changes)) {
    const spec = findOption(key);
    if (!spec) throw new InvalidInputError(`unknown option "${key}"`);
    spec.parse(String(value));
    current[key] = value;
  }
  writeFileAtomic(path, `${JSON.stringify(current, null, 2)}\n`, 0o600);
}
