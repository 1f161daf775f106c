import { Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { filesTable } from '../../cli/storage-display.js';
import { readPages } from '../../cli/paged-list.js';
import type { FileListItem } from '../../shared/storage-api.js';

export default class FilesLs extends NodeCommand {
  static override summary = 'List the files of the storage layer.';
  static override description =
    'Every file, in id order (all pages), or one page with --limit and --cursor: then the ' +
    'output names the cursor of the next page.';
  static override examples = [
    '<%= config.bin %> files ls',
    '<%= config.bin %> files ls --json',
    '<%= config.bin %> files ls --limit 100 --cursor <nextCursor>',
  ];
  static override flags = {
    limit: Flags.integer({ description: 'Files of one page (1 to 1000).', min: 1, max: 1000 }),
    cursor: Flags.string({ description: 'Start after this file id (the nextCursor of a page).' }),
  };

  async run(): Promise<{ files: FileListItem[]; nextCursor?: string }> {
    const { flags } = await this.parse(FilesLs);
    const rest = this.connectRest(flags);
    try {
      const { items, nextCursor } = await readPages(
        async (cursor) => {
          const page = await rest.files({ limit: flags.limit, cursor });
          return { items: page.files, nextCursor: page.nextCursor };
        },
        { cursor: flags.cursor, onePage: flags.limit !== undefined },
      );
      this.log(items.length === 0 ? 'no files' : filesTable(items));
      if (nextCursor !== undefined) this.log(`next page: --cursor ${nextCursor}`);
      return { files: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
    } finally {
      await rest.close();
    }
  }
}
