/**
 * Where commands get passphrases: a masked prompt when stdin is a terminal, or the first line
 * of `--password-file` (geth's convention) for scripts. A script never gets a prompt: without a
 * terminal and without the flag the command fails with a usage error naming the flag.
 */
import { Errors, Flags } from '@oclif/core';
import { readBoundedTextSync, SECRET_FILE_MAX_BYTES } from '../shared/bounded-read.js';

/** The `--password-file` flag. */
export const passwordFileFlag = Flags.string({
  description:
    'File whose first line is the passphrase (for scripts; without it a terminal prompts).',
});

/** The `--allow-empty-passphrase` flag of the commands that store a key. */
export const allowEmptyPassphraseFlag = Flags.boolean({
  description: 'Accept an empty passphrase (the key file is then readable by anyone who has it).',
  default: false,
});

/**
 * A key stored under an empty passphrase is unprotected, so that takes the flag.
 *
 * @throws CLIError exit 2 when `passphrase` is empty and `allowEmpty` is not set.
 */
export function refuseEmptyPassphrase(passphrase: string, allowEmpty: boolean): void {
  if (passphrase === '' && !allowEmpty) {
    throw new Errors.CLIError(
      'the passphrase is empty, which would leave the key unprotected: give one, or pass --allow-empty-passphrase',
      { exit: 2 },
    );
  }
}

/** How to ask for one passphrase. */
export interface PassphraseRequest {
  /** Value of `--password-file`, if given. */
  passwordFile: string | undefined;
  /** The prompt's text, e.g. "Passphrase for 0xabc…". */
  message: string;
  /** Ask twice and require both to match (for new key files). */
  confirm?: boolean;
}

/**
 * The passphrase, from the file or a prompt.
 *
 * @throws CLIError exit 2 when there is neither a file nor a terminal; exit 1 when the two
 *   entries of a confirmed prompt differ or the file cannot be read.
 */
export async function readPassphrase(request: PassphraseRequest): Promise<string> {
  if (request.passwordFile !== undefined) return readPasswordFile(request.passwordFile);
  if (!process.stdin.isTTY) {
    throw new Errors.CLIError(
      'no terminal to prompt for the passphrase: pass it with --password-file <file>',
      { exit: 2 },
    );
  }
  const first = await prompt(request.message);
  if (request.confirm) {
    const again = await prompt('Repeat the passphrase');
    if (again !== first) throw new Errors.CLIError('the passphrases do not match', { exit: 1 });
  }
  return first;
}

/** A masked prompt; Ctrl-C ends the command as an interrupt (130), not with inquirer's error. */
async function prompt(message: string): Promise<string> {
  // inquirer is loaded only when a prompt is shown: scripts never pay for it.
  const { password } = await import('@inquirer/prompts');
  try {
    return await password({ message, mask: '*' });
  } catch (error) {
    if ((error as Error).name === 'ExitPromptError') {
      throw new Errors.CLIError('cancelled', { exit: 130 });
    }
    throw error;
  }
}

async function readPasswordFile(path: string): Promise<string> {
  let text: string;
  try {
    text = readBoundedTextSync(path, SECRET_FILE_MAX_BYTES);
  } catch (error) {
    throw new Errors.CLIError(`cannot read --password-file ${path}: ${(error as Error).message}`, {
      exit: 1,
    });
  }
  return text.split(/\r?\n/, 1)[0];
}
