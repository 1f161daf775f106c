import { formatEther } from '../../shared/units.js';
import { NodeCommand } from '../../cli/node-command.js';
import { addressArg, blockFlag } from '../../cli/chain-args.js';
import { etherAmount } from '../../cli/chain-display.js';
import { keyValueLines } from '../../cli/key-value-lines.js';
import { EthClient, blockSelectorParam, toQuantity, type Hex } from '../../client/eth-client.js';

export interface BalanceResult {
  /** The address with its EIP-55 checksum. */
  address: Hex;
  /** The block as sent to the node: a tag, a 0x-hex number or a block hash. */
  block: string;
  /** Balance in wei, 0x-hex as JSON-RPC quantities (JSON has no 256-bit integers). */
  wei: string;
  /** Balance in ether, as ethers' formatEther writes it. */
  ether: string;
}

export default class AccountBalance extends NodeCommand {
  static override summary = 'Show the balance of an account.';
  static override description =
    'Prints the balance in ether and wei at the latest block, or at the block given with --block.';
  static override examples = [
    '<%= config.bin %> account balance 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '<%= config.bin %> account balance 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --block 0 --json',
  ];
  static override args = { address: addressArg({ required: true }) };
  static override flags = { block: blockFlag() };

  async run(): Promise<BalanceResult> {
    const { args, flags } = await this.parse(AccountBalance);
    const connection = this.connectDaemon(flags);
    try {
      const wei = await new EthClient(connection.rpc).getBalance(args.address, flags.block);
      const block = blockSelectorParam(flags.block);
      for (const line of keyValueLines([
        ['address', args.address],
        ['block', block],
        ['balance', etherAmount(wei)],
      ]))
        this.log(line);
      return { address: args.address, block, wei: toQuantity(wei), ether: formatEther(wei) };
    } finally {
      await connection.close();
    }
  }
}
