import { NodeCommand } from '../../cli/node-command.js';
import { ownerArg } from '../../cli/rest-args.js';
import { JsonInputError, jsonFileArg, readJsonInput } from '../../cli/json-input.js';
import type { SignedContent } from '../../shared/rest-api.js';

export interface VerifyResult {
  owner: string;
  verified: boolean;
}

export default class CryptoVerify extends NodeCommand {
  static override summary = 'Check that a signed record was signed by OWNER.';
  static override description =
    'Reads a signed record (the output of "crypto sign") from FILE or stdin and asks the node whether OWNER signed it. ' +
    'Exits 0 when it did, 1 when it did not (a tampered payload, another signer).';
  static override examples = [
    '<%= config.bin %> crypto verify 0x27db3c931d58b18146ebf2ebd36170b2d792ee8b report.signed.json',
    '<%= config.bin %> crypto sign report.json | <%= config.bin %> crypto verify 0x27db3c931d58b18146ebf2ebd36170b2d792ee8b --json',
  ];
  static override args = {
    owner: ownerArg({
      description: 'Address or identity handle of the expected signer.',
      required: true,
    }),
    file: jsonFileArg,
  };

  async run(): Promise<VerifyResult> {
    const { args, flags } = await this.parse(CryptoVerify);
    const signed = (await readJsonInput(args.file)) as SignedContent;
    if (typeof signed.signature !== 'string' || signed.data === undefined) {
      throw new JsonInputError(
        'the input must be a signed record {data, signer, signature, algorithm} as "crypto sign" prints it',
      );
    }
    const rest = this.connectRest(flags);
    try {
      const verified = await rest.verify(args.owner, signed);
      this.log(verified ? `verified: signed by ${args.owner}` : `NOT signed by ${args.owner}`);
      if (!verified) process.exitCode = 1;
      return { owner: args.owner, verified };
    } finally {
      await rest.close();
    }
  }
}
