import { Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { chunksTable } from '../../cli/storage-display.js';
import { readPages } from '../../cli/paged-list.js';
import type { ChunkListItem } from '../../shared/storage-api.js';

export default class ChunkLs extends NodeCommand {
  static override summary = 'List the chunks of the storage layer.';
  static override description =
    "Every chunk, in id order (all pages), or one page with --limit and --cursor. A chunk's " +
    'redundancy, expiry and renewal are the most any file holding it asks for.';
  static override examples = ['<%= config.bin %> chunk ls', '<%= config.bin %> chunk ls --json'];
  static override flags = {
    limit: Flags.integer({ description: 'Chunks of one page (1 to 1000).', min: 1, max: 1000 }),
    cursor: Flags.string({ description: 'Start after this chunk id (the nextCursor of a page).' }),
  };

  async run(): Promise<{ chunks: ChunkListItem[]; nextCursor?: string }> {
    const { flags } = await this.parse(ChunkLs);
    const rest = this.connectRest(flags);
    try {
      const { items, nextCursor } = await readPages(
        async (cursor) => {
          const page = await rest.chunks({ limit: flags.limit, cursor });
          return { items: page.chunks, nextCursor: page.nextCursor };
        },
        { cursor: flags.cursor, onePage: flags.limit !== undefined },
      );
      this.log(items.length === 0 ? 'no chunks' : chunksTable(items));
      if (nextCursor !== undefined) this.log(`next page: --cursor ${nextCursor}`);
      return { chunks: items, ...(nextCursor === undefined ? {} : { nextCursor }) };
    } finally {
      await rest.close();
    }
  }
}
