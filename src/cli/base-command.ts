/**
 * The base of every node-cli command: the shared `--datadir` flag, `--json` output through
 * oclif's JSON flag, and one mapping from errors to exit codes (1 failure, 2 usage).
 */
import { Command, Errors, Flags } from '@oclif/core';
import { defaultDataDir } from '../shared/datadir-layout.js';
import {
  DaemonControlError,
  DaemonNotRunningError,
  RestResponseError,
  RpcResponseError,
} from '../client/errors.js';
import { NodeError } from '../daemon/errors.js';
import { JsonInputError } from './json-input.js';

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    datadir: Flags.string({
      description:
        'Data directory of the node (default $XDG_DATA_HOME/node-cli or ~/.local/share/node-cli).',
      env: 'NODE_CLI_DATADIR',
      helpGroup: 'GLOBAL',
    }),
  };

  protected dataDir(flags: { datadir?: string }): string {
    return flags.datadir ?? defaultDataDir();
  }

  /** Fails the command with a usage error (exit 2). */
  protected usageError(message: string): never {
    this.error(message, { exit: 2 });
  }

  /**
   * Known failures become one-line messages with exit code 1; anything else keeps oclif's
   * report. The exit code an error carries (2 for usage errors) holds with --json too, where
   * oclif would otherwise answer 1.
   */
  protected override async catch(
    error: Error & { exitCode?: number; oclif?: { exit?: number } },
  ): Promise<unknown> {
    const reported = this.toReportedError(error);
    process.exitCode ??= reported.oclif?.exit;
    return super.catch(reported);
  }

  /** `--json` errors as `{error: {message, exit}}`, without oclif's parser internals. */
  protected override toErrorJson(error: unknown): { error: { message: string; exit: number } } {
    const { message, oclif } = error as Error & { oclif?: { exit?: number } };
    return { error: { message, exit: oclif?.exit ?? 1 } };
  }

  private toReportedError(
    error: Error & { oclif?: { exit?: number } },
  ): Error & { oclif?: { exit?: number } } {
    if (error instanceof RpcResponseError) {
      const data = error.data === undefined ? '' : ` (data: ${JSON.stringify(error.data)})`;
      return new Errors.CLIError(`RPC error ${error.code}: ${error.message}${data}`, { exit: 1 });
    }
    if (error instanceof JsonInputError) return new Errors.CLIError(error.message, { exit: 2 });
    if (error instanceof RestResponseError) {
      return new Errors.CLIError(`REST error ${error.status}: ${error.message}`, { exit: 1 });
    }
    if (
      error instanceof DaemonControlError ||
      error instanceof DaemonNotRunningError ||
      error instanceof NodeError
    ) {
      return new Errors.CLIError(error.message, { exit: 1 });
    }
    return error;
  }
}
