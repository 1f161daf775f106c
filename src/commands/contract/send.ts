import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { contractArg } from '../../cli/rest-args.js';
import { cliParams, sentLine } from '../../cli/contract-display.js';
import type { SentTransaction } from '../../shared/rest-api.js';

export default class ContractSend extends NodeCommand {
  static override summary = "Send a transaction to a contract function from the node's identity.";
  static override description =
    'Signed by the node identity key (funded automatically on the dev chain) and answered once ' +
    'mined. A transaction that would revert is refused with the revert reason (exit 1) before ' +
    'it is sent. METHOD and PARAMS as for "contract call"; --value sends wei to a payable function.';
  static override examples = [
    '<%= config.bin %> contract send Token transfer 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 250',
    '<%= config.bin %> contract send Fixture deposit --value 1000000000000000000 --json',
  ];
  static override strict = false;
  static override args = {
    contract: contractArg({ required: true }),
    method: Args.string({ description: 'Function name or signature.', required: true }),
    params: Args.string({ description: 'Arguments, in order.', required: false }),
  };
  static override flags = {
    value: Flags.string({ description: 'Wei to send (decimal or 0x).', default: '0' }),
  };

  async run(): Promise<SentTransaction> {
    const { args, argv, flags } = await this.parse(ContractSend);
    if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(flags.value)) {
      this.usageError(`--value must be a whole number of wei (decimal or 0x), got ${flags.value}`);
    }
    const params = cliParams((argv as string[]).slice(2));
    const rest = this.connectRest(flags);
    try {
      const sent = await rest.send(args.contract, args.method, params, flags.value);
      this.log(sentLine(sent));
      return sent;
    } finally {
      await rest.close();
    }
  }
}
