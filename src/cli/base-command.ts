/**
 * The base of every node-cli command: the shared `--datadir` and `--verbose` flags, `--json`
 * output through oclif's JSON flag, and one mapping from errors to what a person reads: one line
 * saying what was wrong, exit 1 for failures and 2 for usage errors, no stack traces or library
 * internals unless `--verbose` asks for them (then the cause chain with stacks).
 */
import { Command, Errors, Flags, settings, ux, type Interfaces } from '@oclif/core';
import { defaultDataDir } from '../shared/datadir-layout.js';
import {
  DaemonControlError,
  DaemonNotRunningError,
  InterfaceDisabledError,
  MissingEndpointError,
  NodeUnreachableError,
  RequestTimeoutError,
  UntrustedCertificateError,
  RestResponseError,
  RpcResponseError,
} from '../client/errors.js';
import { NodeError } from '../shared/errors.js';
import { closestName } from './closest-name.js';
import { JsonInputError } from './json-input.js';

/** What oclif's parser returns flags and arguments as (its own type is not exported). */
type ParsedValues = Record<string, unknown>;

type OclifError = Error & { oclif?: { exit?: number } };

/**
 * How oclif's parser wraps the error of a flag's value (its own or one a flag's `parse` threw):
 * the flag, the reason, then a line pointing at the help.
 */
const FLAG_VALUE_FAILURE = /^Parsing (--[\w.-]+) \n\t([^\n]*)\nSee more help with --help$/;

/** What oclif's parser errors carry (they are not exported as classes). */
type ParseError = OclifError & { parse?: unknown; showHelp?: boolean; flags?: string[] };

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  /**
   * Whether `--json` output is JSON Lines (a stream's items, one object a line): then the error
   * that ends the stream is one line too, which a line-by-line reader can parse.
   */
  static jsonLines = false;

  static override baseFlags = {
    datadir: Flags.string({
      description:
        'Data directory of the node (default $XDG_DATA_HOME/node-cli or ~/.local/share/node-cli).',
      env: 'NODE_CLI_DATADIR',
      helpGroup: 'GLOBAL',
      // An empty path would resolve to the working directory; an empty variable is ignored.
      parse: async (input) => {
        if (input === '') {
          throw new Errors.CLIError(
            '--datadir is empty: name a directory, or leave the flag out for the default',
            { exit: 2 },
          );
        }
        return input;
      },
    }),
    verbose: Flags.boolean({
      description: 'On failure, show the cause chain and stack traces.',
      env: 'NODE_CLI_VERBOSE',
      helpGroup: 'GLOBAL',
    }),
  };

  /**
   * Arguments come from the command line only. oclif would take piped stdin as the value of a
   * missing argument, so `node-cli rpc eth_blockNumber` in a `while read` loop would swallow the
   * loop's input, and every call would open stdin to look; commands that read stdin do so
   * themselves.
   */
  protected override parse<F extends ParsedValues, B extends ParsedValues, A extends ParsedValues>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const input = options ?? (this.ctor as Interfaces.Input<F, B, A>);
    const args = Object.fromEntries(
      Object.entries(input.args ?? {}).map(([name, arg]) => [name, { ...arg, ignoreStdin: true }]),
    );
    // The command class stays the prototype: oclif reads its inherited flags through it.
    return super.parse(Object.assign(Object.create(input), input, { args }), argv);
  }

  protected dataDir(flags: { datadir?: string }): string {
    return flags.datadir ?? defaultDataDir();
  }

  /** Fails the command with a usage error (exit 2). */
  protected usageError(message: string): never {
    this.error(message, { exit: 2 });
  }

  /**
   * The exit code an error carries (2 for usage errors) holds with --json too, where oclif
   * would otherwise answer 1.
   */
  protected override async catch(error: OclifError): Promise<unknown> {
    const reported = this.toReportedError(error);
    if (this.verbose()) {
      settings.debug = true;
      if (reported !== error) reported.cause = error;
    }
    process.exitCode ??= reported.oclif?.exit;
    return super.catch(reported);
  }

  /** `--json` errors as `{error: {message, exit}}`, without oclif's parser internals. */
  protected override toErrorJson(error: unknown): { error: { message: string; exit: number } } {
    const { message, oclif } = error as OclifError;
    return { error: { message, exit: oclif?.exit ?? 1 } };
  }

  /**
   * `--json` output. Without a JSON colour theme oclif's own `logJson` splits the whole document
   * into tokens only to join them again uncoloured, a cost that grows with the document (a full
   * block, a trace); the same text is written directly then.
   */
  override logJson(json: unknown): void {
    if ((this.ctor as typeof BaseCommand).jsonLines) return ux.stdout(JSON.stringify(json));
    if (this.config.theme?.json !== undefined) return super.logJson(json);
    ux.stdout(JSON.stringify(json, null, 2));
  }

  /** Parsing may have failed, so the flag is looked for in the raw arguments. */
  private verbose(): boolean {
    const env = process.env.NODE_CLI_VERBOSE;
    return (
      this.argv.includes('--verbose') || (env !== undefined && !['', '0', 'false'].includes(env))
    );
  }

  private toReportedError(error: OclifError): Errors.CLIError | OclifError {
    const failure = (message: string, exit = 1) => new Errors.CLIError(message, { exit });
    if ((error as ParseError).parse !== undefined) return this.parseFailure(error as ParseError);
    const flagValue = FLAG_VALUE_FAILURE.exec(error.message);
    if (flagValue !== null) {
      const [, flag, reason] = flagValue;
      const message = reason.includes(flag) ? reason : `${flag}: ${reason}`;
      return this.withHelpHint(message, error.oclif?.exit ?? 2);
    }
    if (error instanceof RpcResponseError) {
      const details = error.data === undefined ? '' : ` (data: ${JSON.stringify(error.data)})`;
      return failure(`the node refused the call: ${error.message}${details}`);
    }
    if (error instanceof JsonInputError || error instanceof MissingEndpointError) {
      return failure(error.message, 2);
    }
    if (error instanceof RestResponseError) {
      return failure(`REST error ${error.status}: ${error.message}`);
    }
    if (
      error instanceof DaemonControlError ||
      error instanceof DaemonNotRunningError ||
      error instanceof InterfaceDisabledError ||
      error instanceof NodeUnreachableError ||
      error instanceof RequestTimeoutError ||
      error instanceof UntrustedCertificateError ||
      error instanceof NodeError
    ) {
      return failure(error.message);
    }
    if (error instanceof Errors.CLIError || error.oclif?.exit !== undefined) return error;
    // ethers puts the whole request and its version into `message`; `shortMessage` is the gist.
    const { shortMessage } = error as { shortMessage?: string };
    return failure(
      `${shortMessage ?? (error.message || error.name)} (run with --verbose for details)`,
    );
  }

  /**
   * A parse error in one line: what was wrong, the closest flag for an unknown one, and where
   * the help is, instead of oclif's message followed by the whole help.
   */
  private parseFailure(error: ParseError): Errors.CLIError {
    let message = error.message.replace(/\n+See more help with --help\s*$/, '');
    if (error.flags !== undefined && error.flags.length > 0) {
      const flags = { ...this.ctor.baseFlags, ...this.ctor.flags };
      const known = [
        ...(this.ctor.enableJsonFlag ? ['--json'] : []),
        ...Object.keys(flags).map((name) => `--${name}`),
      ];
      const guesses = error.flags
        .map((flag) => [flag, closestName(flag.replace(/=.*$/, ''), known)])
        .filter(([, guess]) => guess !== undefined)
        .map(([flag, guess]) => (error.flags?.length === 1 ? guess : `${guess} for ${flag}`));
      message = `unknown flag${error.flags.length === 1 ? '' : 's'} ${error.flags.join(', ')}`;
      if (guesses.length > 0) message += `; did you mean ${guesses.join(', ')}?`;
    }
    return this.withHelpHint(message, error.oclif?.exit ?? 2);
  }

  private withHelpHint(message: string, exit: number): Errors.CLIError {
    const command = `${this.config.bin} ${this.id?.replaceAll(':', ' ') ?? ''}`.trim();
    return new Errors.CLIError(`${message} (see ${command} --help)`, { exit });
  }
}
