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
  lines.push('.SH SEE ALSO', `${escapeRoff(bin)}(1)`);
  return `${lines.join('\n')}\n`;
}

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
