import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { sentLine } from '../../cli/contract-display.js';
import { isHandle } from '../../shared/identity-handle.js';
import type { SentTransaction } from '../../shared/rest-api.js';

export interface RegisterResult {
  identity: string;
  owner: string;
  transaction: SentTransaction;
}

export default class IdentityRegister extends NodeCommand {
  static override summary = "Register a handle for the node's identity address.";
  static override description =
    'A transaction of the identity registry (POST /contracts/send to IdentityRegistry) signed by ' +
    'the node identity key, answered once mined. Handles are 3 to 32 characters of a-z 0-9 - _, ' +
    'not starting with 0x; one handle per owner, and a taken handle is refused (exit 1).';
  static override examples = [
    '<%= config.bin %> identity register alice-node',
    '<%= config.bin %> identity register alice-node --json',
  ];
  static override args = {
    handle: Args.string({ description: 'The handle to register.', required: true }),
  };

  async run(): Promise<RegisterResult> {
    const { args, flags } = await this.parse(IdentityRegister);
    if (!isHandle(args.handle)) {
      this.usageError(
        `invalid handle ${args.handle}: 3 to 32 characters of a-z 0-9 - _, not starting with 0x`,
      );
    }
    const rest = this.connectRest(flags);
    try {
      const transaction = await rest.send('IdentityRegistry', 'register', [args.handle], '0');
      this.log(`registered ${args.handle} for ${transaction.from}; ${sentLine(transaction)}`);
      return { identity: args.handle, owner: transaction.from, transaction };
    } finally {
      await rest.close();
    }
  }
}
