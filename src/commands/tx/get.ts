import { withChecksummedAddresses } from '../../cli/json-conventions.js';
import { NodeCommand } from '../../cli/node-command.js';
import { transactionHashArg } from '../../cli/chain-args.js';
import { transactionLines } from '../../cli/chain-display.js';
import { EthClient, type RpcObject } from '../../client/eth-client.js';
import { NotFoundError } from '../../shared/errors.js';

export default class TxGet extends NodeCommand {
  static override summary = 'Show a transaction, pending or mined.';
  static override description =
    'Prints sender, recipient, value, fees and the block of a transaction, or that it is pending. ' +
    'With --json prints the transaction object as eth_getTransactionByHash returns it.';
  static override examples = [
    '<%= config.bin %> tx get 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
    '<%= config.bin %> tx get 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 --json',
  ];
  static override args = { hash: transactionHashArg({ required: true }) };

  async run(): Promise<RpcObject> {
    const { args, flags } = await this.parse(TxGet);
    const connection = this.connectDaemon(flags);
    try {
      const tx = await new EthClient(connection.rpc).getTransaction(args.hash);
      if (tx === null) throw new NotFoundError(`transaction ${args.hash} not found`);
      for (const line of transactionLines(tx)) this.log(line);
      return withChecksummedAddresses(tx.raw);
    } finally {
      await connection.close();
    }
  }
}
