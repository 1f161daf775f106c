/**
 * The `daemon start` flags, generated from the daemon's option table so that the flags, the
 * environment variables and the config file keys are always the same set.
 */
import { delimiter } from 'node:path';
import { Flags } from '@oclif/core';
import { OPTION_SPECS, envVarName } from '../shared/config/options.js';

function helpText(description: string, key: string, defaultText: string | undefined): string {
  const shownDefault =
    defaultText === undefined || defaultText === '' ? '' : ` [default: ${defaultText}]`;
  return `${description}${shownDefault} [env: ${envVarName(key)}]`;
}

export const daemonOptionFlags = Object.fromEntries(
  OPTION_SPECS.map((spec) => [
    spec.key,
    spec.boolean
      ? Flags.boolean({
          description: helpText(spec.description, spec.key, spec.defaultText),
          allowNo: true,
          helpGroup: 'NODE',
        })
      : spec.repeatable
        ? Flags.string({
            description: helpText(spec.description, spec.key, spec.defaultText),
            helpGroup: 'NODE',
            multiple: true,
          })
        : Flags.string({
            description: helpText(spec.description, spec.key, spec.defaultText),
            helpGroup: 'NODE',
          }),
  ]),
);

/** The option values given on the command line, as raw text by option key. */
export function explicitOptionValues(flags: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const spec of OPTION_SPECS) {
    const value = flags[spec.key];
    if (Array.isArray(value)) values[spec.key] = value.join(delimiter);
    else if (value !== undefined) values[spec.key] = String(value);
  }
  return values;
}
