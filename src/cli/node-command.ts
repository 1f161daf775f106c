/**
 * The base of the commands that talk to a node: the endpoint flags (`--rpc-url`, `--ws-url`,
 * `--rest-url`, `--consensus-url`, `--token`, `--token-file`, `--request-timeout`, each also an
 * environment variable) on top of `--datadir`, and the connections they select.
 */
import { Errors, Flags } from '@oclif/core';
import {
  connectDaemon,
  connectRest,
  consensusUrl,
  type DaemonConnection,
  type NodeTarget,
} from '../client/daemon-connection.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../client/http-transport.js';
import type { RestClient } from '../client/rest-client.js';
import { readBoundedTextSync, SECRET_FILE_MAX_BYTES } from '../shared/bounded-read.js';
import { parseDuration } from '../shared/duration.js';
import { BaseCommand } from './base-command.js';

/** A token file holds 64 hex digits; reading stops past this (a --token-file of /dev/zero). */

function urlFlag(name: string, schemes: string[], what: string, env: string) {
  return Flags.string({
    description: `${what} URL of the node to use instead of the data directory's daemon.`,
    env,
    helpGroup: 'NODE CONNECTION',
    parse: async (input) => {
      let url: URL | undefined;
      try {
        url = new URL(input);
      } catch {
        url = undefined;
      }
      if (url === undefined || !schemes.includes(url.protocol)) {
        throw new Errors.CLIError(
          `invalid --${name} "${input}": expected a ${schemes.map((scheme) => `${scheme}//`).join(' or ')} URL`,
          { exit: 2 },
        );
      }
      return input;
    },
  });
}

/** The flags that name the node; see `docs/cli.md` ("Reaching a node"). */
export const nodeConnectionFlags = {
  'rpc-url': urlFlag('rpc-url', ['http:', 'https:'], 'JSON-RPC over HTTP', 'NODE_CLI_RPC_URL'),
  'ws-url': urlFlag('ws-url', ['ws:', 'wss:'], 'JSON-RPC over WebSocket', 'NODE_CLI_WS_URL'),
  'rest-url': urlFlag(
    'rest-url',
    ['http:', 'https:'],
    'REST (the /v1/api base)',
    'NODE_CLI_REST_URL',
  ),
  'consensus-url': urlFlag(
    'consensus-url',
    ['ws:', 'wss:'],
    'Consensus WebSocket (…/websocket)',
    'NODE_CLI_CONSENSUS_URL',
  ),
  token: Flags.string({
    description:
      "Bearer token for private methods (default: the data directory's auth.token). Prefer --token-file: a flag shows in the process list.",
    env: 'NODE_CLI_TOKEN',
    helpGroup: 'NODE CONNECTION',
    exclusive: ['token-file'],
  }),
  'token-file': Flags.string({
    description: 'File holding the bearer token (e.g. <datadir>/auth.token of a remote node).',
    env: 'NODE_CLI_TOKEN_FILE',
    helpGroup: 'NODE CONNECTION',
    exclusive: ['token'],
  }),
  'request-timeout': Flags.custom<number>({
    description: `How long an HTTP request may go unanswered before the command fails, e.g. 90s or 5m; 0 for no limit (default ${DEFAULT_REQUEST_TIMEOUT_MS / 1000}s). A WebSocket stream is limited only while it opens.`,
    env: 'NODE_CLI_REQUEST_TIMEOUT',
    helpGroup: 'NODE CONNECTION',
    parse: async (input) => {
      try {
        return parseDuration(input);
      } catch (error) {
        throw new Errors.CLIError(`invalid --request-timeout: ${(error as Error).message}`, {
          exit: 2,
        });
      }
    },
  })(),
};

export type NodeConnectionFlags = {
  datadir?: string;
  'rpc-url'?: string;
  'ws-url'?: string;
  'rest-url'?: string;
  'consensus-url'?: string;
  token?: string;
  'token-file'?: string;
  'request-timeout'?: number;
};

export abstract class NodeCommand extends BaseCommand {
  static override baseFlags = { ...BaseCommand.baseFlags, ...nodeConnectionFlags };

  protected nodeTarget(flags: NodeConnectionFlags): NodeTarget {
    return {
      dataDir: this.dataDir(flags),
      urls: {
        http: flags['rpc-url'],
        ws: flags['ws-url'],
        rest: flags['rest-url'],
        consensusWs: flags['consensus-url'],
      },
      token: flags.token ?? this.readTokenFile(flags['token-file']),
      requestTimeoutMs: flags['request-timeout'],
    };
  }

  protected connectDaemon(flags: NodeConnectionFlags): DaemonConnection {
    return connectDaemon(this.nodeTarget(flags));
  }

  protected connectRest(flags: NodeConnectionFlags): RestClient {
    return connectRest(this.nodeTarget(flags));
  }

  protected consensusUrl(flags: NodeConnectionFlags): string {
    return consensusUrl(this.nodeTarget(flags));
  }

  private readTokenFile(path: string | undefined): string | undefined {
    if (path === undefined) return undefined;
    try {
      return readBoundedTextSync(path, SECRET_FILE_MAX_BYTES).trim();
    } catch (error) {
      throw new Errors.CLIError(
        `cannot read --token-file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { exit: 1 },
      );
    }
  }
}
