import { homedir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Flags } from '@oclif/core';
import { NodeCommand } from '../cli/node-command.js';
import { tlsTrust } from '../client/tls-trust.js';

/** Top-level `await` in `--exec` code, as the REPL allows it. */
const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<unknown>;

export default class Console extends NodeCommand {
  static override summary = 'Open an interactive JavaScript session attached to the node.';
  static override description =
    'A REPL (like "geth attach") with, in scope: rpc(method, ...params) calling any JSON-RPC method ' +
    'with the token, provider (an ethers v6 JsonRpcProvider on the same URL, token included) and ' +
    'ethers itself. Top-level await works; Tab completes names and properties; history is kept ' +
    'in ~/.node_cli_history. --exec evaluates one expression, prints the result (JSON when it ' +
    "can be) and exits. The node is the data directory's daemon or the one of --rpc-url. " +
    "ethers reads this node's blocks only in the Ethereum form (daemon start " +
    '--json-rpc.ethereum-compat); rpc() reads them in either.';
  static override examples = [
    '<%= config.bin %> console',
    `<%= config.bin %> console --exec "await rpc('eth_blockNumber')"`,
    `<%= config.bin %> console --rpc-url http://127.0.0.1:8545 --exec "await provider.getBalance('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')"`,
  ];
  static override flags = {
    exec: Flags.string({ description: 'Evaluate this JavaScript (await allowed), print, exit.' }),
  };
  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { flags } = await this.parse(Console);
    const connection = this.connectDaemon(flags);
    // ethers only here: the other commands do without it.
    const ethers = await import('ethers');
    const request = new ethers.FetchRequest(connection.rpc.url);
    if (connection.token !== undefined)
      request.setHeader('authorization', `Bearer ${connection.token}`);
    const { ca } = tlsTrust();
    if (ca !== undefined && request.url.startsWith('https:')) {
      const { Agent } = process.getBuiltinModule('node:https');
      request.getUrlFunc = ethers.FetchRequest.createGetUrlFunc({ agent: new Agent({ ca }) });
    }
    const provider = new ethers.JsonRpcProvider(request, undefined, { staticNetwork: true });
    const scope = {
      rpc: (method: string, ...params: unknown[]) => connection.rpc.call(method, params),
      provider,
      ethers,
    };
    try {
      if (flags.exec !== undefined) {
        const names = Object.keys(scope);
        const run = new AsyncFunction(...names, `return (${flags.exec});`);
        this.log(show(await run(...Object.values(scope))));
        return;
      }
      // Piped input would be read on without waiting for each line's await: scripts use --exec.
      if (!process.stdin.isTTY) {
        this.usageError('the console needs a terminal; in scripts evaluate with --exec "<code>"');
      }
      await this.interact(scope);
    } finally {
      provider.destroy();
      await connection.close();
    }
  }

  private async interact(scope: Record<string, unknown>): Promise<void> {
    const { start } = await import('node:repl');
    this.log(
      'node-cli console: rpc(method, ...params), provider, ethers; .exit or Ctrl-D to leave',
    );
    const session = start({ prompt: '> ', useGlobal: false, preview: false });
    Object.assign(session.context, scope);
    await new Promise<void>((resolve) => {
      session.setupHistory(join(homedir(), '.node_cli_history'), () => resolve());
    });
    await new Promise<void>((resolve) => session.once('exit', () => resolve()));
  }
}

/** JSON (bigints as decimal strings) when the value is data, else Node's inspection. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    const json = JSON.stringify(
      value,
      (_, item: unknown) => (typeof item === 'bigint' ? item.toString() : item),
      2,
    ) as string | undefined;
    return json ?? String(value);
  } catch {
    return inspect(value, { depth: 4 });
  }
}
