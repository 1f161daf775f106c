import { createReadStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { Args, Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { expiresOf } from '../../cli/expiry-input.js';
import { transferProgress } from '../../cli/transfer-progress.js';
import type { FileDetail } from '../../shared/storage-api.js';

/**
 * Bytes read from the file at a time: 1 MiB pieces (the daemon's default chunk) instead of the
 * stream's default 64 KiB take a sixteenth of the stream and socket calls on the client's side,
 * which shares the machine's cores with the daemon it sends to (docs/benchmarks.md).
 */
const READ_PIECE_BYTES = 1024 * 1024;

export default class FilesAdd extends NodeCommand {
  static override summary = 'Add files to the storage layer of the node.';
  static override description =
    'Streams each PATH to the daemon, which splits it into chunks (--storage.chunk-size), keeps ' +
    'replicas on distinct storage volumes and answers once the file is durable and listed. A ' +
    'progress bar (bytes, rate, ETA) shows on a terminal for files of 4 MiB and more. The file ' +
    'is listed under PATH as given (its localPath).';
  static override examples = [
    '<%= config.bin %> files add photo.jpg',
    '<%= config.bin %> files add backup.tar --redundancy 2 --expires 30d --autorenew',
    '<%= config.bin %> files add a.txt b.txt --json',
  ];
  static override strict = false;
  static override args = {
    path: Args.string({ description: 'File to add (several may follow).', required: true }),
  };
  static override flags = {
    redundancy: Flags.integer({
      description:
        "Replicas on distinct storage volumes (default: the daemon's --storage.redundancy).",
      min: 1,
      max: 16,
    }),
    expires: Flags.string({
      description:
        'When the file expires: never (default), a duration from now (30m, 12h, 7d, 2w) or a date (2027-01-31).',
    }),
    autorenew: Flags.boolean({
      description: 'Renew the file for the same lease each time it expires instead of removing it.',
      default: false,
    }),
  };

  async run(): Promise<FileDetail[]> {
    const { argv, flags } = await this.parse(FilesAdd);
    const paths = argv as string[];
    let expires = 0;
    try {
      expires =
        flags.expires === undefined ? 0 : expiresOf(flags.expires, Math.floor(Date.now() / 1000));
    } catch (error) {
      this.usageError((error as Error).message);
    }
    if (flags.autorenew && expires === 0) this.usageError('--autorenew needs --expires');
    const sizes = paths.map((path) => {
      try {
        const stats = statSync(path);
        if (!stats.isFile()) this.usageError(`${path} is not a regular file`);
        return stats.size;
      } catch (error) {
        return this.usageError(`cannot read ${path}: ${(error as Error).message}`);
      }
    });
    const rest = this.connectRest(flags);
    const added: FileDetail[] = [];
    try {
      for (const [position, path] of paths.entries()) {
        const progress = transferProgress(`add ${path}`, sizes[position], this.jsonEnabled());
        try {
          // The request owns the stream it sends: a read error destroys it and fails the upload,
          // and once the body has ended, undici closes it, which may come before the meter's
          // own 'finish' (a pipeline awaited beside the upload then failed with "Premature
          // close" after a successful upload).
          const read = createReadStream(path, { highWaterMark: READ_PIECE_BYTES });
          const body = progress.meter ? pipeline(read, progress.meter, () => undefined) : read;
          const file = await rest.upload(body, {
            name: path,
            redundancy: flags.redundancy,
            expires,
            autorenew: flags.autorenew,
            // A size of 0 may hide content (files of /proc and /sys): sent without a length.
            size: sizes[position] > 0 ? sizes[position] : undefined,
          });
          added.push(file);
          this.log(`${file.id}  ${file.ul_status}  ${file.size} bytes  ${path}`);
        } finally {
          progress.stop();
        }
      }
      return added;
    } finally {
      await rest.close();
    }
  }
}
