import { NodeCommand } from '../../cli/node-command.js';
import { fileIdArg } from '../../cli/rest-args.js';

export default class FilesRm extends NodeCommand {
  static override summary = 'Remove a file from the storage layer.';
  static override description =
    'Removes the file and the chunks no other file holds; chunks shared with other files stay.';
  static override examples = ['<%= config.bin %> files rm <id>'];
  static override args = {
    id: fileIdArg({ required: true }),
  };

  async run(): Promise<{ removed: string }> {
    const { args, flags } = await this.parse(FilesRm);
    const rest = this.connectRest(flags);
    try {
      await rest.removeFile(args.id);
      this.log(`removed ${args.id}`);
      return { removed: args.id };
    } finally {
      await rest.close();
    }
  }
}
