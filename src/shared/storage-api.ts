/**
 * The storage layer's REST bodies and `/ws/node` messages, shared by the daemon that answers
 * them and the client that reads them. docs/storage.md explains every field and status.
 */

/** Upload status of a file (docs/storage.md, "ul_status"). */
export type UploadStatus = 'queued' | 'uploading' | 'uploaded' | 'degraded' | 'failed';

/** Status of a chunk's replicas on this node (docs/storage.md, "dl_status"). */
export type ChunkStatus = 'downloaded' | 'missing' | 'corrupt' | 'repairing';

/** 64 lower-case hex digits: the form of every chunk and file id. */
export const CONTENT_ID_PATTERN = '^[0-9a-f]{64}$';

/** Encodings of `GET /storage/files/:id/content`. */
export const CONTENT_ENCODINGS = ['utf-8', 'base64', 'binary', 'hex'] as const;
export type ContentEncoding = (typeof CONTENT_ENCODINGS)[number];

/** An item of `GET /storage/files` → `{files: [...]}`. */
export interface FileListItem {
  id: string;
  /** The name the file was added under (the uploader's path). */
  localPath: string;
  size: number;
  redundancy: number;
  /** Unix seconds; 0 = never. */
  expires: number;
  autorenew: boolean;
  chunkCount: number;
}

/** `GET /storage/files/:id` → `{file: FileDetail}`; also the answer to an upload. */
export interface FileDetail {
  localPath: string;
  size: number;
  chunkIds: string[];
  id: string;
  redundancy: number;
  expires: number;
  autorenew: boolean;
  ul_status: UploadStatus;
}

/** An item of `GET /storage/chunks` → `{chunks: [...]}`. */
export interface ChunkListItem {
  id: string;
  redundancy: number;
  expires: number;
  autorenew: boolean;
}

/** `[file id, index of the chunk in that file, the file's localPath]`. */
export type ChunkOwner = [string, number, string];

/** `GET /storage/chunks/:id` → `{chunk: {chunk: ChunkDetail}}`. */
export interface ChunkDetail {
  belongsToFiles: ChunkOwner[];
  ul_status: UploadStatus;
  id: string;
  redundancy: number;
  expires: number;
  autorenew: boolean;
  dl_status: ChunkStatus;
  length: number;
}

/** A page of a list: `nextCursor` is present only when more items follow. */
export interface StoragePage {
  nextCursor?: string;
}

/** A file status change on `GET /ws/node`; `id` is the upload's id until the file id is known. */
export interface NodeFileEvent {
  type: 'file';
  data: { id: string; ul_status: UploadStatus | 'removed'; localPath: string; reason?: string };
}

/** A chunk replica status change on `GET /ws/node`. */
export interface NodeChunkEvent {
  type: 'chunk';
  data: { id: string; dl_status: ChunkStatus; volume: string; replica: ReplicaState };
}

/** State of one replica of a chunk on one volume. */
export type ReplicaState = 'ok' | 'missing' | 'corrupt' | 'repairing';

export type StorageEvent = NodeFileEvent | NodeChunkEvent;
