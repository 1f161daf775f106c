import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { chunkLines } from '../../cli/storage-display.js';
import { connectRest } from '../../client/daemon-connection.js';
import type { ChunkDetail } from '../../shared/storage-api.js';

export default class ChunkShow extends BaseCommand {
  static override summary = "Show one chunk: the files holding it and its replicas' status.";
  static override examples = [
    '<%= config.bin %> chunk show <id>',
    '<%= config.bin %> chunk show <id> --json',
  ];
  static override args = {
    id: Args.string({
      description: 'Chunk id (64 hex digits, the SHA-256 of its bytes).',
      required: true,
    }),
  };

  async run(): Promise<ChunkDetail> {
    const { args, flags } = await this.parse(ChunkShow);
    const rest = connectRest(this.dataDir(flags));
    try {
      const chunk = await rest.chunk(args.id);
      for (const line of chunkLines(chunk)) this.log(line);
      return chunk;
    } finally {
      await rest.close();
    }
  }
}
