import { addressArg } from '../../cli/chain-args.js';
import { NodeCommand } from '../../cli/node-command.js';

export default class IdentityLookup extends NodeCommand {
  static override summary = 'Print the handle of an owner address.';
  static override description = 'Exits 1 when the address has no handle.';
  static override examples = [
    '<%= config.bin %> identity lookup 0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    '<%= config.bin %> identity lookup 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --json',
  ];
  static override args = {
    owner: addressArg({ description: 'The owner address.', required: true }),
  };

  async run(): Promise<{ owner: string; identity: string }> {
    const { args, flags } = await this.parse(IdentityLookup);
    const rest = this.connectRest(flags);
    try {
      const identity = await rest.ownerIdentity(args.owner);
      this.log(identity);
      return { owner: args.owner, identity };
    } finally {
      await rest.close();
    }
  }
}
