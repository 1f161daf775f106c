import { Interface, type InterfaceAbi } from 'ethers';
import { NodeCommand } from '../../cli/node-command.js';
import { contractArg } from '../../cli/rest-args.js';
import type { ContractInstance } from '../../shared/rest-api.js';

export default class ContractAbi extends NodeCommand {
  static override summary = 'Show the address and ABI of a contract.';
  static override description =
    'Prints the address and one line per function and event; --json prints the REST answer ' +
    '{address, abi} with the ABI entries nested in one inner array, as the spec shows them.';
  static override examples = [
    '<%= config.bin %> contract abi Token',
    '<%= config.bin %> contract abi 0x5FbDB2315678afecb367f032d93F642f64180aa3 --json',
  ];
  static override args = {
    contract: contractArg({ required: true }),
  };

  async run(): Promise<ContractInstance> {
    const { args, flags } = await this.parse(ContractAbi);
    const rest = this.connectRest(flags);
    try {
      const instance = await rest.contract(args.contract);
      this.log(`address ${instance.address ?? '(none)'}`);
      const iface = new Interface(instance.abi.flat() as InterfaceAbi);
      iface.forEachFunction((fragment) => this.log(fragment.format('full')));
      iface.forEachEvent((fragment) => this.log(fragment.format('full')));
      return instance;
    } finally {
      await rest.close();
    }
  }
}
