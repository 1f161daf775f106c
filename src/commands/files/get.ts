import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { transferProgress } from '../../cli/transfer-progress.js';
import { connectRest } from '../../client/daemon-connection.js';

export interface FilesGetResult {
  id: string;
  size: number;
  output: string;
}

export default class FilesGet extends BaseCommand {
  static override summary = "Download a file's bytes, streamed.";
  static override description =
    'Writes to FILE with -o (through a temporary name, renamed when complete) or to stdout. ' +
    'Every chunk is verified by its hash on the daemon. A progress bar shows on a terminal for ' +
    'files of 4 MiB and more when writing to a file.';
  static override examples = [
    '<%= config.bin %> files get <id> -o photo.jpg',
    '<%= config.bin %> files get <id> > photo.jpg',
  ];
  static override args = {
    id: Args.string({ description: 'File id (64 hex digits).', required: true }),
  };
  static override flags = {
    output: Flags.string({ char: 'o', description: 'Write to this file instead of stdout.' }),
  };

  async run(): Promise<FilesGetResult> {
    const { args, flags } = await this.parse(FilesGet);
    if (flags.output === undefined && this.jsonEnabled()) {
      this.usageError('--json needs -o FILE: the bytes would mix with the JSON on stdout');
    }
    const rest = connectRest(this.dataDir(flags));
    try {
      const { length, stream } = await rest.download(args.id);
      const output = flags.output;
      if (output === undefined) {
        await pipeline(stream, process.stdout as Writable, { end: false });
        return { id: args.id, size: length, output: '-' };
      }
      const partial = `${output}.partial-${process.pid}`;
      const progress = transferProgress(`get ${output}`, length, this.jsonEnabled());
      try {
        await pipeline(stream, progress.meter, createWriteStream(partial));
        await rename(partial, output);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      } finally {
        progress.stop();
      }
      this.log(`wrote ${length} bytes to ${output}`);
      return { id: args.id, size: length, output };
    } finally {
      await rest.close();
    }
  }
}
