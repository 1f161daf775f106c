import { withChecksummedAddresses } from '../../cli/json-conventions.js';
import { NodeCommand } from '../../cli/node-command.js';
import { transactionHashArg } from '../../cli/chain-args.js';
import { receiptLines } from '../../cli/chain-display.js';
import { EthClient, type RpcObject } from '../../client/eth-client.js';
import { NotFoundError } from '../../shared/errors.js';

export default class TxReceipt extends NodeCommand {
  static override summary = 'Show the receipt of a mined transaction.';
  static override description =
    'Prints status, gas used, contract address and logs of a transaction once it is in a block. ' +
    'With --json prints the receipt object as eth_getTransactionReceipt returns it.';
  static override examples = [
    '<%= config.bin %> tx receipt 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
    '<%= config.bin %> tx receipt 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 --json',
  ];
  static override args = { hash: transactionHashArg({ required: true }) };

  async run(): Promise<RpcObject> {
    const { args, flags } = await this.parse(TxReceipt);
    const connection = this.connectDaemon(flags);
    try {
      const eth = new EthClient(connection.rpc);
      const receipt = await eth.getTransactionReceipt(args.hash);
      if (receipt === null) {
        // A null receipt means either "unknown" or "not mined yet"; the transaction tells which.
        const pending = (await eth.getTransaction(args.hash)) !== null;
        throw new NotFoundError(
          pending
            ? `transaction ${args.hash} is pending: no receipt until it is in a block`
            : `transaction ${args.hash} not found`,
        );
      }
      for (const line of receiptLines(receipt)) this.log(line);
      return withChecksummedAddresses(receipt.raw);
    } finally {
      await connection.close();
    }
  }
}
