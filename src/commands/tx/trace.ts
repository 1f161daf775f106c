import { Flags } from '@oclif/core';
import { NodeCommand, type NodeConnectionFlags } from '../../cli/node-command.js';
import { transactionHashArg } from '../../cli/chain-args.js';
import { ContractNames } from '../../cli/contract-names.js';
import {
  callTreeLines,
  fourByteLines,
  prestateLines,
  structLogLines,
} from '../../cli/trace-display.js';
import type { RestClient } from '../../client/rest-client.js';
import { TraceClient } from '../../client/trace-client.js';
import { TRACERS, type TracerChoice, type TraceResults } from '../../shared/trace-results.js';

export default class TxTrace extends NodeCommand {
  static override summary = 'Trace a mined transaction: its call tree, state or steps.';
  static override description =
    'Re-executes the transaction where it was mined (debug_traceTransaction, which needs the auth ' +
    'token the CLI reads from the data directory) and prints, by --tracer: "call" the tree of ' +
    'calls with values, gas, reverts with their reasons and logs; "prestate" the accounts and ' +
    'storage it touched as they were before it; "struct" a summary of its opcode steps; "4byte" ' +
    'the function selectors it called. Calls, errors and logs are named by the ABIs of the ' +
    "node's contract registry and of the --abi files. With --json prints geth's JSON result.";
  static override examples = [
    '<%= config.bin %> tx trace 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
    '<%= config.bin %> tx trace 0x5c50…2060 --abi out/Token.sol/Token.json',
    '<%= config.bin %> tx trace 0x5c50…2060 --tracer prestate --json',
  ];
  static override args = { hash: transactionHashArg({ required: true }) };
  static override flags = {
    tracer: Flags.string({
      description: 'What to show: the call tree, the prestate, the struct log or selector counts.',
      options: Object.keys(TRACERS),
      default: 'call',
    }),
    abi: Flags.string({
      description:
        'ABI file (an ABI array or a compiled artifact) to name calls, errors and logs with; repeatable.',
      multiple: true,
    }),
  };

  async run(): Promise<TraceResults[TracerChoice]> {
    const { args, flags } = await this.parse(TxTrace);
    const tracer = flags.tracer as TracerChoice;
    const connection = this.connectDaemon(flags);
    let rest: RestClient | undefined;
    try {
      const result = await new TraceClient(connection.rpc).traceTransaction(args.hash, tracer);
      if (this.jsonEnabled()) return result;
      rest = this.restIfServed(flags);
      const names = await ContractNames.load(rest, flags.abi ?? []);
      const lines =
        tracer === 'call'
          ? callTreeLines(result as TraceResults['call'], names)
          : tracer === 'prestate'
            ? prestateLines(result as TraceResults['prestate'], names)
            : tracer === 'struct'
              ? structLogLines(result as TraceResults['struct'])
              : fourByteLines(result as TraceResults['4byte'], names);
      for (const line of lines) this.log(line);
      return result;
    } finally {
      await Promise.all([connection.close(), rest?.close()]);
    }
  }

  /** The node's REST client for contract names, or none when the node serves no REST. */
  private restIfServed(flags: NodeConnectionFlags): RestClient | undefined {
    try {
      return this.connectRest(flags);
    } catch {
      return undefined;
    }
  }
}
