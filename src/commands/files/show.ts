import { NodeCommand } from '../../cli/node-command.js';
import { fileIdArg } from '../../cli/rest-args.js';
import { fileLines } from '../../cli/storage-display.js';
import type { FileDetail } from '../../shared/storage-api.js';

export default class FilesShow extends NodeCommand {
  static override summary = "Show one file's metadata and upload status.";
  static override examples = [
    '<%= config.bin %> files show <id>',
    '<%= config.bin %> files show <id> --json',
  ];
  static override args = {
    id: fileIdArg({ required: true }),
  };

  async run(): Promise<FileDetail> {
    const { args, flags } = await this.parse(FilesShow);
    const rest = this.connectRest(flags);
    try {
      const file = await rest.file(args.id);
      for (const line of fileLines(file)) this.log(line);
      return file;
    } finally {
      await rest.close();
    }
  }
}
