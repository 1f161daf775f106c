import { NodeCommand } from '../../cli/node-command.js';
import { jsonFileArg, readJsonInput } from '../../cli/json-input.js';
import type { SealedContent } from '../../shared/rest-api.js';

export default class CryptoEncrypt extends NodeCommand {
  static override summary = "Encrypt a JSON object to the node's identity key.";
  static override description =
    'Reads a JSON object from FILE or stdin and prints {ciphertext, publicKey, algorithm}: ECIES over secp256k1 ' +
    '(HKDF-SHA256, AES-256-GCM) in the format of the eciesjs package. Only this node can decrypt it ("crypto decrypt").';
  static override examples = [
    '<%= config.bin %> crypto encrypt secret.json > secret.sealed.json',
    'echo \'{"pin":1234}\' | <%= config.bin %> crypto encrypt --json',
  ];
  static override args = { file: jsonFileArg };

  async run(): Promise<SealedContent> {
    const { args, flags } = await this.parse(CryptoEncrypt);
    const data = (await readJsonInput(args.file)) as object;
    const rest = this.connectRest(flags);
    try {
      const sealed = await rest.encrypt(data);
      this.log(JSON.stringify(sealed, null, 2));
      return sealed;
    } finally {
      await rest.close();
    }
  }
}
