import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { fileIdArg } from '../../cli/rest-args.js';
import { transferProgress } from '../../cli/transfer-progress.js';
import { CONTENT_ENCODINGS, type ContentEncoding } from '../../shared/storage-api.js';

/**
 * The content string as the stream the bytes would be, so both take one path to the output.
 * `binary` answers one character per byte (ISO-8859-1, docs/storage.md), so its characters are
 * turned back into those bytes; the other encodings are text, written as UTF-8.
 */
function textStream(text: string, encoding: ContentEncoding): { length: number; stream: Readable } {
  const bytes = Buffer.from(text, encoding === 'binary' ? 'latin1' : 'utf8');
  return { length: bytes.length, stream: Readable.from([bytes]) };
}

/**
 * What the output file's stream may hold before it pushes back: the pieces that arrive meanwhile
 * (64 KiB socket reads) go to the file together in one call, instead of one call per piece
 * through the thread pool with the stream's default 16 KiB (docs/benchmarks.md).
 */
const WRITE_BUFFER_BYTES = 4 * 1024 * 1024;

export interface FilesGetResult {
  id: string;
  size: number;
  output: string;
}

export default class FilesGet extends NodeCommand {
  static override summary = "Download a file's bytes, streamed.";
  static override description =
    'Writes to FILE with -o (through a temporary name, renamed when complete) or to stdout. ' +
    'Every chunk is verified by its hash on the daemon. A progress bar shows on a terminal for ' +
    'files of 4 MiB and more when writing to a file. With --encoding the daemon answers the ' +
    'file as one string in that encoding (files up to its --storage.max-content-size), which is ' +
    'written instead of the bytes.';
  static override examples = [
    '<%= config.bin %> files get <id> -o photo.jpg',
    '<%= config.bin %> files get <id> > photo.jpg',
    '<%= config.bin %> files get <id> --encoding base64',
  ];
  static override args = {
    id: fileIdArg({ required: true }),
  };
  static override flags = {
    output: Flags.string({ char: 'o', description: 'Write to this file instead of stdout.' }),
    encoding: Flags.string({
      description: 'Write the file as text in this encoding instead of its bytes.',
      options: [...CONTENT_ENCODINGS],
    }),
  };

  async run(): Promise<FilesGetResult> {
    const { args, flags } = await this.parse(FilesGet);
    if (flags.output === undefined && this.jsonEnabled()) {
      this.usageError('--json needs -o FILE: the bytes would mix with the JSON on stdout');
    }
    const rest = this.connectRest(flags);
    try {
      const { length, stream } =
        flags.encoding === undefined
          ? await rest.download(args.id)
          : textStream(
              await rest.fileContent(args.id, flags.encoding as ContentEncoding),
              flags.encoding as ContentEncoding,
            );
      const output = flags.output;
      // The daemon ends a download early when the file is removed meanwhile or a chunk has no
      // intact replica left; the socket error alone ("other side closed") would not say so.
      // Failures of the output (disk full, no permission) pass as they are.
      const cutShort = (error: unknown) => {
        const code = String((error as NodeJS.ErrnoException).code ?? '');
        if (!code.startsWith('UND_ERR') && code !== 'ERR_STREAM_PREMATURE_CLOSE') return error;
        return new Error(
          `the download of ${args.id} (${length} bytes) ended early: ${(error as Error).message}; the file may have been removed, or a chunk lost (see the daemon log)`,
          { cause: error },
        );
      };
      if (output === undefined) {
        await pipeline(stream, process.stdout as Writable, { end: false }).catch((error) => {
          throw cutShort(error);
        });
        return { id: args.id, size: length, output: '-' };
      }
      const partial = `${output}.partial-${process.pid}`;
      const progress = transferProgress(`get ${output}`, length, this.jsonEnabled());
      try {
        const write = createWriteStream(partial, { highWaterMark: WRITE_BUFFER_BYTES });
        await (progress.meter ? pipeline(stream, progress.meter, write) : pipeline(stream, write));
        await rename(partial, output);
      } catch (error) {
        await rm(partial, { force: true });
        throw cutShort(error);
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
