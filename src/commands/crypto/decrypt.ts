import { NodeCommand } from '../../cli/node-command.js';
import { JsonInputError, jsonFileArg, readJsonInput } from '../../cli/json-input.js';
import type { SealedContent } from '../../shared/rest-api.js';

export default class CryptoDecrypt extends NodeCommand {
  static override summary = "Decrypt a record encrypted to the node's identity key.";
  static override description =
    'Reads {ciphertext, …} (the output of "crypto encrypt", or any eciesjs ciphertext of JSON text to the node key, as 0x-hex) ' +
    'from FILE or stdin and prints the JSON value it holds.';
  static override examples = [
    '<%= config.bin %> crypto decrypt secret.sealed.json',
    '<%= config.bin %> crypto encrypt secret.json | <%= config.bin %> crypto decrypt --json',
  ];
  static override args = { file: jsonFileArg };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CryptoDecrypt);
    const sealed = (await readJsonInput(args.file)) as Partial<SealedContent>;
    if (typeof sealed.ciphertext !== 'string') {
      throw new JsonInputError('the input must be {ciphertext, …} as "crypto encrypt" prints it');
    }
    const rest = this.connectRest(flags);
    try {
      const value = await rest.decrypt({ ...sealed, ciphertext: sealed.ciphertext });
      this.log(JSON.stringify(value, null, 2));
      return value;
    } finally {
      await rest.close();
    }
  }
}
