import { NodeCommand } from '../../cli/node-command.js';
import type { ContractSummary } from '../../shared/rest-api.js';

export default class ContractList extends NodeCommand {
  static override summary = 'List the named contracts of the node.';
  static override description =
    'The built-in identity registry, the contracts registered with "contract add", and the ABI ' +
    'files in <datadir>/contracts/. Listing deploys the identity registry if this chain has none yet.';
  static override examples = [
    '<%= config.bin %> contract list',
    '<%= config.bin %> contract list --json',
  ];

  async run(): Promise<ContractSummary[]> {
    const { flags } = await this.parse(ContractList);
    const rest = this.connectRest(flags);
    try {
      const contracts = await rest.contracts();
      const width = Math.max(4, ...contracts.map((c) => c.name.length));
      for (const { name, address, source } of contracts) {
        this.log(`${name.padEnd(width)}  ${(address ?? '(no address)').padEnd(42)}  ${source}`);
      }
      return contracts;
    } finally {
      await rest.close();
    }
  }
}
