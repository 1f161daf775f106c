/**
 * Human output of the `files` and `chunk` commands: cli-table3 tables for lists, aligned
 * key/value lines for one file or chunk.
 */
import Table from 'cli-table3';
import type {
  ChunkDetail,
  ChunkListItem,
  FileDetail,
  FileListItem,
} from '../shared/storage-api.js';
import { colours, keyValueLines, type KeyValue } from './key-value-lines.js';

/** `expires` for people: never, or the ISO date. */
export function expiresText(expires: number): string {
  return expires === 0 ? 'never' : new Date(expires * 1000).toISOString();
}

function table(head: string[], rows: string[][]): string {
  const output = new Table({
    head: head.map((name) => colours.bold(name)),
    style: { head: [], border: [] },
  });
  output.push(...rows);
  return output.toString();
}

export function filesTable(files: readonly FileListItem[]): string {
  return table(
    ['id', 'size', 'chunks', 'redundancy', 'expires', 'autorenew', 'localPath'],
    files.map((file) => [
      file.id,
      String(file.size),
      String(file.chunkCount),
      String(file.redundancy),
      expiresText(file.expires),
      file.autorenew ? 'yes' : 'no',
      file.localPath,
    ]),
  );
}

export function chunksTable(chunks: readonly ChunkListItem[]): string {
  return table(
    ['id', 'redundancy', 'expires', 'autorenew'],
    chunks.map((chunk) => [
      chunk.id,
      String(chunk.redundancy),
      expiresText(chunk.expires),
      chunk.autorenew ? 'yes' : 'no',
    ]),
  );
}

function leaseLines(item: { redundancy: number; expires: number; autorenew: boolean }): KeyValue[] {
  return [
    ['redundancy', String(item.redundancy)],
    ['expires', expiresText(item.expires)],
    ['autorenew', item.autorenew ? 'yes' : 'no'],
  ];
}

export function fileLines(file: FileDetail): string[] {
  return keyValueLines([
    ['id', file.id],
    ['localPath', file.localPath],
    ['size', String(file.size)],
    ['ul_status', file.ul_status],
    ...leaseLines(file),
    ['chunks', String(file.chunkIds.length)],
    ...file.chunkIds.map((id, index): KeyValue => [`  ${index}`, id]),
  ]);
}

export function chunkLines(chunk: ChunkDetail): string[] {
  return keyValueLines([
    ['id', chunk.id],
    ['length', String(chunk.length)],
    ['ul_status', chunk.ul_status],
    ['dl_status', chunk.dl_status],
    ...leaseLines(chunk),
    ['belongsToFiles', String(chunk.belongsToFiles.length)],
    ...chunk.belongsToFiles.map(([file, index, localPath]): KeyValue => [
      `  ${file}`,
      `#${index} ${localPath}`,
    ]),
  ]);
}
