/**
 * A chunk I/O thread (chunk-io.ts): hashes an upload's chunks and writes replicas durably, one
 * message per job, with blocking calls that hold only this thread. The bytes of an upload's
 * chunk buffers are shared memory, so they are read in place, never copied on the way here.
 *
 * It imports nothing but Node's own modules, so it runs as tsc emits it, beside the daemon's
 * bundle.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { ChunkIoAnswer, ChunkIoJob } from './chunk-io.js';

/** O_DIRECT where the platform has it; the main side asks for it only where it exists. */
const DIRECT_WRITE =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_DIRECT ?? 0);

/** Writes all of `bytes` to `temp`, fsyncs it, and renames it to `target`. */
function writeReplica(bytes: Uint8Array, temp: string, target: string, direct: boolean): void {
  const fd = openSync(temp, direct ? DIRECT_WRITE : 'w');
  try {
    let written = 0;
    while (written < bytes.length) {
      written += writeSync(fd, bytes, written, bytes.length - written, written);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
}

function run(job: ChunkIoJob): ChunkIoAnswer {
  try {
    if (job.kind === 'hash') {
      return { seq: job.seq, id: createHash('sha256').update(job.bytes).digest('hex') };
    }
    writeReplica(job.bytes, job.temp, job.target, job.direct);
    return { seq: job.seq };
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    return { seq: job.seq, error: { message, code } };
  }
}

parentPort?.on('message', (job: ChunkIoJob) => parentPort?.postMessage(run(job)));
