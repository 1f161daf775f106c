import { BaseCommand } from '../../cli/base-command.js';
import { daemonOptionFlags, explicitOptionValues } from '../../cli/daemon-flags.js';
import { colours, keyValueLines } from '../../cli/key-value-lines.js';
import { envVarName, findOption } from '../../shared/config/options.js';
import {
  readConfigFile,
  resolveConfig,
  type ConfigInputs,
  type OptionSource,
} from '../../shared/config/resolve-config.js';
import { dataDirLayout } from '../../shared/datadir-layout.js';

export interface ConfigShowResult {
  dataDir: string;
  configFile: string;
  /** Every option: its value as it would be written in config.json, and where it came from. */
  options: Record<string, { value: string; source: OptionSource }>;
}

/** The text an option's value was given as, from the source that won. */
function givenText(key: string, source: OptionSource, inputs: ConfigInputs): string {
  switch (source) {
    case 'flag':
      return inputs.flags[key] ?? '';
    case 'environment':
      return inputs.env[envVarName(key)] ?? '';
    case 'config file':
      return inputs.file[key] ?? '';
    case 'default':
      return findOption(key)?.defaultText ?? '';
  }
}

export default class ConfigShow extends BaseCommand {
  static override summary =
    'Show the effective daemon configuration and where each value comes from.';
  static override description =
    'Resolves every option of "daemon start" as the daemon would, with the precedence flag > ' +
    'environment variable (NODE_CLI_<OPTION>) > <datadir>/config.json > default, and prints ' +
    'each value with its source. Option flags given here are taken as "daemon start" would take ' +
    'them, to preview a start. A daemon already running keeps what it was started with.';
  static override examples = [
    '<%= config.bin %> config show',
    '<%= config.bin %> config show --json',
    '<%= config.bin %> config show --block-time 2s   # what daemon start --block-time 2s would use',
  ];
  static override flags = { ...daemonOptionFlags };

  async run(): Promise<ConfigShowResult> {
    // The option flags are generated, so only the base flags are typed here.
    const { flags } = await this.parse(ConfigShow as unknown as typeof BaseCommand);
    const layout = dataDirLayout(this.dataDir(flags));
    let inputs: ConfigInputs;
    let resolved: ReturnType<typeof resolveConfig>;
    try {
      inputs = {
        flags: explicitOptionValues(flags),
        env: process.env,
        file: readConfigFile(layout.configFile),
        configFilePath: layout.configFile,
      };
      resolved = resolveConfig(inputs);
    } catch (error) {
      this.usageError((error as Error).message);
    }
    const options = Object.fromEntries(
      Object.entries(resolved.sources).map(([key, source]) => [
        key,
        { value: givenText(key, source, inputs), source },
      ]),
    );
    this.log(`data directory ${layout.root}`);
    for (const line of keyValueLines(
      Object.entries(options).map(([key, { value, source }]) => [
        key,
        `${value === '' ? colours.dim('(empty)') : value}  ${colours.dim(`(${source})`)}`,
      ]),
      '  ',
    ))
      this.log(line);
    return { dataDir: layout.root, configFile: layout.configFile, options };
  }
}
