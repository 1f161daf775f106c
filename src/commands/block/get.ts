import { Flags } from '@oclif/core';
import { withChecksummedAddresses } from '../../cli/json-conventions.js';
import { NodeCommand } from '../../cli/node-command.js';
import { blockArg } from '../../cli/chain-args.js';
import { EthClient, type RpcObject } from '../../client/eth-client.js';
import { NotFoundError } from '../../shared/errors.js';

export default class BlockGet extends NodeCommand {
  static override summary = 'Show a block of the chain.';
  static override description =
    'Looks a block up by number, tag or hash and prints its header fields and transaction hashes. ' +
    'With --json prints the block object as eth_getBlockByNumber/eth_getBlockByHash return it.';
  static override examples = [
    '<%= config.bin %> block get',
    '<%= config.bin %> block get 12 --full',
    '<%= config.bin %> block get 0x1f --json',
    '<%= config.bin %> block get 0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6',
  ];
  static override args = { block: blockArg({ default: 'latest' }) };
  static override flags = {
    full: Flags.boolean({
      description: 'Include full transaction objects instead of their hashes.',
      default: false,
    }),
  };

  async run(): Promise<RpcObject> {
    const { args, flags } = await this.parse(BlockGet);
    const connection = this.connectDaemon(flags);
    try {
      const block = await new EthClient(connection.rpc).getBlock(args.block, flags.full);
      if (block === null) throw new NotFoundError(`block ${String(args.block)} not found`);
      // --json prints only the returned value: the lines (checksums, colours) and the modules
      // that make them are not loaded then.
      if (!this.jsonEnabled()) {
        const { blockLines } = await import('../../cli/chain-display.js');
        for (const line of blockLines(block)) this.log(line);
      }
      return withChecksummedAddresses(block.raw);
    } finally {
      await connection.close();
    }
  }
}
