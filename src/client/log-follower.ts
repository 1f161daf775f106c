/**
 * Reads the tail of a log file and follows what is appended to it, like `tail -n N -f`.
 */
import { createReadStream, readFileSync, statSync, watch } from 'node:fs';

export function tailLines(path: string, count: number): string[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-count);
}

/**
 * Calls `onText` with every chunk appended after the current end of the file, until the
 * returned function is called. Truncation (log rotation) restarts from the beginning.
 */
export function followFile(path: string, onText: (text: string) => void): () => void {
  let offset = statSync(path).size;
  let reading = false;
  let again = false;
  const readNew = () => {
    if (reading) {
      again = true;
      return;
    }
    const size = statSync(path).size;
    if (size < offset) offset = 0;
    if (size === offset) return;
    reading = true;
    const stream = createReadStream(path, { start: offset, end: size - 1, encoding: 'utf8' });
    stream.on('data', (chunk) => onText(String(chunk)));
    stream.on('close', () => {
      offset = size;
      reading = false;
      if (again) {
        again = false;
        readNew();
      }
    });
  };
  const watcher = watch(path, () => readNew());
  return () => watcher.close();
}
