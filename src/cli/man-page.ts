/**
 * Renders man pages (roff, section 1) from the commands' own oclif metadata, so the pages
 * cannot say something the `--help` output does not. `npm run man` writes them to man/;
 * a test renders them again and fails when the checked-in pages are out of date.
 */
import type { Command, Config } from '@oclif/core';

function escapeRoff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/-/g, '\\-');
}

function expandExample(example: Command.Example, bin: string): string {
  const text = typeof example === 'string' ? example : example.command;
  return text.replace(/<%= config.bin %>/g, bin).replace(/<%= command.id %>/g, '');
}

function flagSynopsis(name: string, flag: Command.Flag.Cached): string {
  const short = flag.char ? `\\-${flag.char}, ` : '';
  if (flag.type === 'boolean')
    return `${short}\\-\\-${flag.allowNo ? '[no\\-]' : ''}${escapeRoff(name)}`;
  return `${short}\\-\\-${escapeRoff(name)} \\fIvalue\\fR`;
}

/** Exit statuses every command shares (docs/cli.md, "Errors and exit status"). */
const EXIT_STATUS: readonly [string, string][] = [
  ['0', 'Success; also when the reader of the output went away (a closed pipe).'],
  [
    '1',
    'The command failed: the node refused a call, is not running or not reachable, a transaction reverted.',
  ],
  ['2', 'Usage error: unknown command or flag, a malformed value, a missing argument.'],
  ['130', 'A passphrase prompt was cancelled with Ctrl-C.'],
];

/** Variables every command reads besides those of its flags. */
const COMMON_ENVIRONMENT: readonly [string, string][] = [
  ['NO_COLOR', 'When set, no colours (output that is not a terminal has none either).'],
  [
    'NODE_EXTRA_CA_CERTS',
    'A PEM file of certificate authorities trusted besides the built-in ones, for https:// and wss:// nodes; read at the first TLS connection, and passed on to the daemon.',
  ],
];

/** What a command may read or write in the data directory. */
const FILES: readonly [string, string][] = [
  ['<datadir>/daemon.json', 'Pid and endpoints of the running daemon; how commands find it.'],
  ['<datadir>/auth.token', 'Bearer token for private methods (mode 0600), sent by every command.'],
  ['<datadir>/keystore/', 'Key files of the node accounts (geth format).'],
  ['<datadir>/config.json', 'Configuration file of the daemon (docs/configuration.md).'],
  ['~/.local/share/node-cli', 'Default data directory ($XDG_DATA_HOME/node-cli when that is set).'],
];

/** `.TP` entries of a section (terms in bold, bodies escaped). */
function definitions(entries: readonly [string, string][]): string[] {
  return entries.flatMap(([term, body]) => [
    '.TP',
    `\\fB${escapeRoff(term)}\\fR`,
    escapeRoff(body),
  ]);
}

/** The sections every page ends with: exit status, environment, files. */
function commonSections(environment: readonly [string, string][]): string[] {
  return [
    '.SH EXIT STATUS',
    ...definitions(EXIT_STATUS),
    '.SH ENVIRONMENT',
    ...definitions([...environment, ...COMMON_ENVIRONMENT]),
    '.SH FILES',
    ...definitions(FILES),
  ];
}

export function manPageName(bin: string, commandId: string): string {
  return `${[bin, ...commandId.split(':')].join('-')}.1`;
}

export function renderManPage(command: Command.Cached, bin: string, version: string): string {
  const words = command.id.split(':').join(' ');
  const title = `${bin}-${command.id.split(':').join('-')}`.toUpperCase();
  const lines: string[] = [
    `.TH "${escapeRoff(title)}" "1" "" "${bin} ${version}" "${bin} manual"`,
    '.SH NAME',
    `${escapeRoff(`${bin} ${words}`)} \\- ${escapeRoff(command.summary ?? command.description?.split('\n')[0] ?? '')}`,
    '.SH SYNOPSIS',
    `.B ${escapeRoff(`${bin} ${words}`)}`,
  ];
  const args = Object.entries(command.args ?? {});
  for (const [name, arg] of args)
    lines.push(arg.required ? `\\fI${escapeRoff(name)}\\fR` : `[\\fI${escapeRoff(name)}\\fR]`);
  lines.push('[\\fIflags\\fR]');
  if (command.description) lines.push('.SH DESCRIPTION', escapeRoff(command.description));
  if (args.length > 0) {
    lines.push('.SH ARGUMENTS');
    for (const [name, arg] of args)
      lines.push('.TP', `\\fI${escapeRoff(name)}\\fR`, escapeRoff(arg.description ?? ''));
  }
  const flags = Object.entries(command.flags ?? {})
    .filter(([, flag]) => !flag.hidden)
    .sort(([a], [b]) => a.localeCompare(b));
  if (flags.length > 0) {
    lines.push('.SH OPTIONS');
    for (const [name, flag] of flags) {
      const defaultValue =
        flag.type === 'option' && flag.default !== undefined
          ? ` [default: ${String(flag.default)}]`
          : '';
      const env = flag.env ? ` [env: ${flag.env}]` : '';
      lines.push(
        '.TP',
        flagSynopsis(name, flag),
        escapeRoff(`${flag.description ?? flag.summary ?? ''}${defaultValue}${env}`),
      );
    }
  }
  const examples = command.examples ?? [];
  if (examples.length > 0) {
    lines.push('.SH EXAMPLES');
    for (const example of examples)
      lines.push('.PP', '.nf', escapeRoff(expandExample(example, bin)), '.fi');
  }
  const environment = flags
    .filter(([, flag]) => flag.env !== undefined)
    .map(([name, flag]): [string, string] => [flag.env as string, `Default of --${name}.`]);
  lines.push(...commonSections(environment), '.SH SEE ALSO', `${escapeRoff(bin)}(1)`);
  return `${lines.join('\n')}\n`;
}

/** The variables of the overview page: the ones most commands read. */
const INDEX_ENVIRONMENT: readonly [string, string][] = [
  ['NODE_CLI_DATADIR', 'Data directory (default of --datadir).'],
  ['NODE_CLI_RPC_URL', "JSON-RPC URL of a node to use instead of the data directory's daemon."],
  ['NODE_CLI_WS_URL', 'JSON-RPC WebSocket URL (logs watch).'],
  ['NODE_CLI_REST_URL', 'REST base URL (node, crypto, contract, identity commands).'],
  ['NODE_CLI_CONSENSUS_URL', 'Consensus WebSocket URL (events tail).'],
  ['NODE_CLI_TOKEN, NODE_CLI_TOKEN_FILE', 'Bearer token, or the file that holds it.'],
  ['NODE_CLI_VERBOSE', 'Show the cause chain and stack traces of errors.'],
  ['NODE_CLI_<OPTION>', 'Every option of daemon start (docs/configuration.md).'],
];

const INDEX_EXAMPLES = [
  'node-cli daemon start && node-cli daemon status',
  'node-cli rpc eth_blockNumber',
  'node-cli block get latest --json --rpc-url http://10.0.0.5:8545',
  'node-cli tx send --from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value 1.5ether',
  'node-cli events tail "tm.event=\'Tx\'" --count 1 --json',
];

/** The overview page `node-cli(1)`, listing every command. */
export function renderIndexPage(config: Config): string {
  const bin = config.bin;
  const lines = [
    `.TH "${bin.toUpperCase()}" "1" "" "${bin} ${config.version}" "${bin} manual"`,
    '.SH NAME',
    `${escapeRoff(bin)} \\- ${escapeRoff(config.pjson.description ?? '')}`,
    '.SH SYNOPSIS',
    `.B ${escapeRoff(bin)}`,
    '\\fIcommand\\fR [\\fIflags\\fR]',
    '.SH COMMANDS',
  ];
  for (const command of [...config.commands]
    .filter((c) => !c.hidden && c.pluginType === 'core')
    .sort((a, b) => a.id.localeCompare(b.id))) {
    const page = manPageName(bin, command.id).replace(/\.1$/, '');
    lines.push(
      '.TP',
      `\\fB${escapeRoff(command.id.split(':').join(' '))}\\fR`,
      `${escapeRoff(command.summary ?? '')} See ${escapeRoff(page)}(1).`,
    );
  }
  lines.push(
    ...commonSections(INDEX_ENVIRONMENT),
    '.SH EXAMPLES',
    ...INDEX_EXAMPLES.flatMap((example) => ['.PP', '.nf', escapeRoff(example), '.fi']),
  );
  return `${lines.join('\n')}\n`;
}

/** Every page the project ships: file name -> content. */
export function renderAllManPages(config: Config): Map<string, string> {
  const pages = new Map<string, string>([[`${config.bin}.1`, renderIndexPage(config)]]);
  for (const command of config.commands.filter((c) => !c.hidden && c.pluginType === 'core')) {
    pages.set(
      manPageName(config.bin, command.id),
      renderManPage(command, config.bin, config.version),
    );
  }
  return pages;
}
