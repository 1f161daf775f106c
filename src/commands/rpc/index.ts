import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';

/** A parameter is JSON when it parses as JSON (numbers, booleans, objects, arrays, quoted strings), else a plain string. */
export function parseParam(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export default class Rpc extends NodeCommand {
  static override summary = 'Call a JSON-RPC method of the running daemon.';
  static override description =
    'Sends one call over HTTP with the auth token of the data directory and prints the result. ' +
    'Each parameter is taken as JSON when it parses as JSON, otherwise as a string (so 0x-hex values need no quotes).';
  static override examples = [
    '<%= config.bin %> rpc eth_blockNumber',
    '<%= config.bin %> rpc eth_getBalance 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 latest',
    `<%= config.bin %> rpc eth_getBlockByNumber latest false --json`,
  ];
  static override strict = false;
  static override args = {
    method: Args.string({ description: 'Method name, e.g. eth_blockNumber.', required: true }),
    params: Args.string({ description: 'Positional parameters (JSON or plain strings).' }),
  };

  async run(): Promise<{ result: unknown }> {
    const { args, argv, flags } = await this.parse(Rpc);
    const params = (argv as string[]).slice(1).map(parseParam);
    const connection = this.connectDaemon(flags);
    try {
      const result = await connection.rpc.call(args.method, params);
      this.log(typeof result === 'string' ? result : JSON.stringify(result, null, 2));
      return { result };
    } finally {
      await connection.close();
    }
  }
}
