import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { isHandle } from '../../shared/identity-handle.js';

export default class IdentityResolve extends NodeCommand {
  static override summary = 'Print the owner address of a handle.';
  static override description = 'Exits 1 when nobody holds the handle.';
  static override examples = [
    '<%= config.bin %> identity resolve alice-node',
    '<%= config.bin %> identity resolve alice-node --json',
  ];
  static override args = {
    handle: Args.string({ description: 'The handle to resolve.', required: true }),
  };

  async run(): Promise<{ identity: string; address: string }> {
    const { args, flags } = await this.parse(IdentityResolve);
    if (!isHandle(args.handle)) {
      this.usageError(
        `invalid handle ${args.handle}: 3 to 32 characters of a-z 0-9 - _, not starting with 0x`,
      );
    }
    const rest = this.connectRest(flags);
    try {
      const address = await rest.identityOwner(args.handle);
      this.log(address);
      return { identity: args.handle, address };
    } finally {
      await rest.close();
    }
  }
}
