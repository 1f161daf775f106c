import { NodeCommand } from '../../cli/node-command.js';
import { jsonFileArg, readJsonInput } from '../../cli/json-input.js';
import type { SignedContent } from '../../shared/rest-api.js';

export default class CryptoSign extends NodeCommand {
  static override summary = "Sign a JSON object with the node's identity key.";
  static override description =
    'Reads a JSON object from FILE or stdin and prints the signed record {data, signer, signature, algorithm}: ' +
    'an EIP-191 personal signature over the RFC 8785 canonical JSON of the object. ' +
    '"crypto verify" checks it; so does ethers\' verifyMessage(canonicalize(data), signature).';
  static override examples = [
    '<%= config.bin %> crypto sign report.json > report.signed.json',
    'echo \'{"hello":"world"}\' | <%= config.bin %> crypto sign',
  ];
  static override args = { file: jsonFileArg };

  async run(): Promise<SignedContent> {
    const { args, flags } = await this.parse(CryptoSign);
    const data = (await readJsonInput(args.file)) as object;
    const rest = this.connectRest(flags);
    try {
      const signed = await rest.sign(data);
      this.log(JSON.stringify(signed, null, 2));
      return signed;
    } finally {
      await rest.close();
    }
  }
}
