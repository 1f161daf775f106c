/**
 * The base of every node-cli command: the shared `--datadir` flag, `--json` output through
 * oclif's JSON flag, and one mapping from errors to exit codes (1 failure, 2 usage).
 */
import { Command, Errors, Flags } from '@oclif/core';
import { defaultDataDir } from '../shared/datadir-layout.js';
import { DaemonControlError, DaemonNotRunningError, RpcResponseError } from '../client/errors.js';
import { NodeError } from '../daemon/errors.js';

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

  /** Known failures become one-line messages with exit code 1; anything else keeps oclif's report. */
  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof RpcResponseError) {
      const data = error.data === undefined ? '' : ` (data: ${JSON.stringify(error.data)})`;
      return super.catch(
        new Errors.CLIError(`RPC error ${error.code}: ${error.message}${data}`, { exit: 1 }),
      );
    }
    if (
      error instanceof DaemonControlError ||
      error instanceof DaemonNotRunningError ||
      error instanceof NodeError
    ) {
      return super.catch(new Errors.CLIError(error.message, { exit: 1 }));
    }
    return super.catch(error);
  }
}
