/**
 * Progress of an upload or download: a cli-progress bar (bytes, rate, ETA) on stderr when it is
 * a terminal and the output is not --json, nothing otherwise. With a bar the bytes pass through
 * a Transform that counts them, so the bar follows the stream without holding any of it;
 * without one nothing is put in the transfer's way.
 */
import { Transform } from 'node:stream';
import cliProgress from 'cli-progress';

/** Files below this show no bar: they are done before one could be read. */
const MIN_BAR_BYTES = 4 * 1024 * 1024;

export interface TransferProgress {
  /** Put in the pipeline of the transfer; counts what passes. Absent when no bar shows. */
  meter?: Transform;
  /** Ends the bar (call when the transfer ended, whatever its outcome). */
  stop(): void;
}

function mebibytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

export function transferProgress(label: string, total: number, quiet: boolean): TransferProgress {
  const show = !quiet && process.stderr.isTTY === true && total >= MIN_BAR_BYTES;
  if (!show) return { stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | {done}/{size} MiB | {speed} MiB/s | ETA {eta_formatted}`,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let done = 0;
  bar.start(total, 0, { done: '0.0', size: mebibytes(total), speed: '0.0' });
  const meter = new Transform({
    transform(piece: Buffer, _encoding, callback) {
      done += piece.length;
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      bar.update(done, { done: mebibytes(done), speed: mebibytes(done / seconds) });
      callback(null, piece);
    },
  });
  return { meter, stop: () => bar.stop() };
}
