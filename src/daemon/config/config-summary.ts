/**
 * The configuration as the start-up log line shows it: the data directory, the settings an
 * operator most often asks about, and every option that is not at its default with where its
 * value came from. Values are written as a user would type them; the config holds no secret
 * (a password file is named by its path, never read here).
 */
import type { OptionSource } from '../../shared/config/resolve-config.js';
import type { NodeConfig, OptionKey } from '../../shared/config/options.js';

/**
 * @param rawValue the option's value as it was given (flag, environment or config file).
 */
export function configSummary(
  dataDir: string,
  config: NodeConfig,
  sources: Record<OptionKey, OptionSource>,
  rawValue: (key: OptionKey) => string | undefined,
): Record<string, unknown> {
  const changed = (Object.keys(sources) as OptionKey[]).filter((key) => sources[key] !== 'default');
  return {
    dataDir,
    dev: config.dev,
    blockTime: `${config['block-time']}ms`,
    apis: config['evm.rpc.api'].join(','),
    logLevel: config['log-level'],
    settings: Object.fromEntries(
      changed.map((key) => [key, `${rawValue(key) ?? ''} (${sources[key]})`]),
    ),
  };
}
