/**
 * Resolves the daemon's configuration with the precedence flag > environment variable >
 * config file in the data directory > default, and reports where each value came from.
 */
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { InvalidInputError } from '../errors.js';
import {
  OPTION_SPECS,
  envVarName,
  findOption,
  type NodeConfig,
  type OptionKey,
} from './options.js';

export type OptionSource = 'flag' | 'environment' | 'config file' | 'default';

export interface ResolvedConfig {
  config: NodeConfig;
  sources: Record<OptionKey, OptionSource>;
}

export interface ConfigInputs {
  /** Raw values of the options given on the command line, by option key. */
  flags: Partial<Record<string, string>>;
  env: NodeJS.ProcessEnv;
  /** Raw values from the config file, by option key. */
  file: Partial<Record<string, string>>;
  configFilePath?: string;
}

function describeSource(source: OptionSource, key: string, configFilePath?: string): string {
  switch (source) {
    case 'flag':
      return `--${key}`;
    case 'environment':
      return `environment variable ${envVarName(key)}`;
    case 'config file':
      return `"${key}" in ${configFilePath ?? 'the config file'}`;
    case 'default':
      return `the default of --${key}`;
  }
}

export function resolveConfig(inputs: ConfigInputs): ResolvedConfig {
  for (const key of Object.keys(inputs.flags)) {
    if (!findOption(key)) throw new InvalidInputError(`unknown option --${key}`);
  }
  const config: Record<string, unknown> = {};
  const sources = {} as Record<OptionKey, OptionSource>;
  for (const spec of OPTION_SPECS) {
    const candidates: Array<[OptionSource, string | undefined]> = [
      ['flag', inputs.flags[spec.key]],
      ['environment', inputs.env[envVarName(spec.key)]],
      ['config file', inputs.file[spec.key]],
      ['default', spec.defaultText ?? ''],
    ];
    const [source, raw] = candidates.find(([, value]) => value !== undefined) as [
      OptionSource,
      string,
    ];
    try {
      config[spec.key] = spec.parse(raw);
    } catch (error) {
      const where = describeSource(source, spec.key, inputs.configFilePath);
      throw new InvalidInputError(`invalid value for ${where}: ${(error as Error).message}`);
    }
    sources[spec.key] = source;
  }
  return { config: config as unknown as NodeConfig, sources };
}

/**
 * Reads `config.json` of a data directory: a flat JSON object whose keys are option names.
 * A missing file is an empty configuration; anything malformed is an error naming the problem.
 */
export function readConfigFile(path: string): Partial<Record<string, string>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return {};
    throw new InvalidInputError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(
      `config file ${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidInputError(
      `config file ${path} must hold a JSON object of option names to values`,
    );
  }
  const values: Partial<Record<string, string>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!findOption(key))
      throw new InvalidInputError(`config file ${path}: unknown option "${key}"`);
    // A repeatable option's entries are joined as its repeated flags are (`storage.volume`).
    if (Array.isArray(value))
      values[key] = value.join(findOption(key)?.repeatable ? delimiter : ',');
    else if (['string', 'number', 'boolean'].includes(typeof value)) values[key] = String(value);
    else
      throw new InvalidInputError(
        `config file ${path}: "${key}" must be a string, number or boolean`,
      );
  }
  return values;
}
