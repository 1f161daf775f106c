import { NodeCommand } from '../../cli/node-command.js';
import { chunkIdArg } from '../../cli/rest-args.js';
import { chunkLines } from '../../cli/storage-display.js';
import type { ChunkDetail } from '../../shared/storage-api.js';

export default class ChunkShow extends NodeCommand {
  static override summary = "Show one chunk: the files holding it and its replicas' status.";
  static override examples = [
    '<%= config.bin %> chunk show <id>',
    '<%= config.bin %> chunk show <id> --json',
  ];
  static override args = {
    id: chunkIdArg({ required: true }),
  };

  async run(): Promise<ChunkDetail> {
    const { args, flags } = await this.parse(ChunkShow);
    const rest = this.connectRest(flags);
    try {
      const chunk = await rest.chunk(args.id);
      for (const line of chunkLines(chunk)) this.log(line);
      return chunk;
    } finally {
      await rest.close();
    }
  }
}
