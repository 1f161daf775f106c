/**
 * An unknown command is a usage error (exit 2) with a "did you mean" and where to look, on one
 * line, in scripts as on a terminal; no prompt that could run a different command than typed.
 */
import { Errors, type Hook } from '@oclif/core';
import { closestName } from '../cli/closest-name.js';

const hook: Hook<'command_not_found'> = async function (options) {
  const typed = options.id.replaceAll(':', ' ');
  const ids = options.config.commands
    .filter((command) => !command.hidden)
    .map((command) => command.id.replaceAll(':', ' '));
  const suggestion = closestName(typed, ids);
  const hint = suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
  throw new Errors.CLIError(
    `"${typed}" is not a ${options.config.bin} command${hint} (${options.config.bin} --help lists them)`,
    { exit: 2 },
  );
};

export default hook;
