import { addressArg } from '../../cli/chain-args.js';
import { NodeCommand } from '../../cli/node-command.js';
import { contractNameArg } from '../../cli/rest-args.js';
import { JsonInputError, jsonFileArg, readJsonInput } from '../../cli/json-input.js';
import type { ContractInstance } from '../../shared/rest-api.js';

export default class ContractAdd extends NodeCommand {
  static override summary = 'Register a contract under a name: its address and ABI.';
  static override description =
    'Reads the ABI from FILE or stdin: an ABI array, or a compiled artifact with an "abi" field ' +
    '(Hardhat, Foundry, solc-js). The node keeps it in <datadir>/contracts/registry.json; ' +
    '"contract call NAME ..." then finds it. Registering a name again replaces it.';
  static override examples = [
    '<%= config.bin %> contract add Token 0x5FbDB2315678afecb367f032d93F642f64180aa3 artifacts/Token.json',
    'cat Token.abi.json | <%= config.bin %> contract add Token 0x5FbDB2315678afecb367f032d93F642f64180aa3 --json',
  ];
  static override args = {
    name: contractNameArg({ required: true }),
    address: addressArg({ description: 'Address of the contract.', required: true }),
    file: jsonFileArg,
  };

  async run(): Promise<ContractInstance & { name: string }> {
    const { args, flags } = await this.parse(ContractAdd);
    const input = await readJsonInput(args.file, false);
    const abi = Array.isArray(input) ? input : (input as { abi?: unknown } | null)?.abi;
    if (!Array.isArray(abi)) {
      throw new JsonInputError('the input must be an ABI array or an artifact with an "abi" array');
    }
    const rest = this.connectRest(flags);
    try {
      const added = await rest.addContract(args.name, args.address, abi);
      this.log(`registered ${args.name} at ${added.address} (${added.abi[0].length} ABI entries)`);
      return { name: args.name, ...added };
    } finally {
      await rest.close();
    }
  }
}
