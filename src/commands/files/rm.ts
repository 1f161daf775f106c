import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { connectRest } from '../../client/daemon-connection.js';

export default class FilesRm extends BaseCommand {
  static override summary = 'Remove a file from the storage layer.';
  static override description =
    'Removes the file and the chunks no other file holds; chunks shared with other files stay.';
  static override examples = ['<%= config.bin %> files rm <id>'];
  static override args = {
    id: Args.string({ description: 'File id (64 hex digits).', required: true }),
  };

  async run(): Promise<{ removed: string }> {
    const { args, flags } = await this.parse(FilesRm);
    const rest = connectRest(this.dataDir(flags));
    try {
      await rest.removeFile(args.id);
      this.log(`removed ${args.id}`);
      return { removed: args.id };
    } finally {
      await rest.close();
    }
  }
}
