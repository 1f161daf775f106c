import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { contractArg } from '../../cli/rest-args.js';
import { cliParams, resultLines } from '../../cli/contract-display.js';

export default class ContractCall extends NodeCommand {
  static override summary = 'Call a contract function (eth_call) and print its decoded results.';
  static override description =
    'METHOD is a function name, or its signature when the name is overloaded ' +
    '("transfer(address,uint256)"). PARAMS are the arguments in order; a value starting with [ ' +
    'is JSON (arrays, tuples). Integers print as decimal, addresses checksummed; --json prints ' +
    'the results as an array.';
  static override examples = [
    '<%= config.bin %> contract call Token balanceOf 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '<%= config.bin %> contract call Token "transfer(address,uint256)" 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 10 --json',
  ];
  static override strict = false;
  static override args = {
    contract: contractArg({ required: true }),
    method: Args.string({ description: 'Function name or signature.', required: true }),
    params: Args.string({ description: 'Arguments, in order.', required: false }),
  };

  async run(): Promise<unknown[]> {
    const { args, argv, flags } = await this.parse(ContractCall);
    const params = cliParams((argv as string[]).slice(2));
    const rest = this.connectRest(flags);
    try {
      const results = await rest.call(args.contract, args.method, params);
      const { abi } = await rest.contract(args.contract);
      for (const line of resultLines(abi, args.method, results)) this.log(line);
      return results;
    } finally {
      await rest.close();
    }
  }
}
