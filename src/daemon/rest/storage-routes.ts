/**
 * `/storage/...`: the storage layer's files and chunks (docs/storage.md). Bodies are the spec's
 * shapes (`{files}`, `{file}`, `{chunks}`, `{chunk: {chunk}}`, `{data}`); lists are pages of
 * `limit` items after `cursor` with `nextCursor` present only when more follow. Uploads are
 * streamed (`application/octet-stream`), downloads too through `/raw`; `/content` answers the
 * whole file as one JSON string in the asked encoding, up to `--storage.max-content-size`.
 */
import { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import {
  CONTENT_ENCODINGS,
  CONTENT_ID_PATTERN,
  type ContentEncoding,
  type FileDetail,
} from '../../shared/storage-api.js';
import { InvalidInputError, PayloadTooLargeError } from '../../shared/errors.js';
import type { StorageLayer } from '../storage/storage-layer.js';
import { MAX_REDUNDANCY } from '../../shared/storage-limits.js';
import type { Logger } from '../logger.js';
import { downloadStream } from './download-stream.js';
import { JSON_CONTENT_TYPE, RawContent, restRoute, type RestResource } from './resource.js';

// C0, DEL and C1: a terminal takes U+009B as CSI, as it takes ESC [.
// eslint-disable-next-line no-control-regex -- finding them is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Items of a list page when `limit` is not given, and the most a page may hold. */
const DEFAULT_PAGE = 1000;

export interface StorageRouteOptions {
  storage: StorageLayer;
  /** `--storage.redundancy`: replicas of an upload that does not say. */
  defaultRedundancy: number;
  /** `--storage.max-content-size`: largest file `/content` answers as a JSON string. */
  maxContentSize: number;
  /** `--storage.download-idle-timeout`: longest a download waits for its client to take bytes. */
  downloadIdleTimeoutMs: number;
  /** Told of each download ended for a client that stopped taking bytes. */
  logger: Pick<Logger, 'info'>;
}

/** Most bytes a download hands its response at once: the step its idle clock measures. */
const DOWNLOAD_PIECE_BYTES = 256 * 1024;

const ID_SCHEMA = {
  type: 'string',
  pattern: CONTENT_ID_PATTERN,
  description: 'A file or chunk id: 64 lower-case hex digits (SHA-256).',
} as const;
const ID_PARAMS = { type: 'object', required: ['id'], properties: { id: ID_SCHEMA } };
const PAGE_QUERY = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: DEFAULT_PAGE, default: DEFAULT_PAGE },
    cursor: { ...ID_SCHEMA, description: 'The `nextCursor` of the previous page.' },
  },
  additionalProperties: false,
};
/** The query of an operation that has no parameters: any parameter is refused, named. */
const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false };
const NEXT_CURSOR = { type: 'string', description: 'Present when more items follow.' };
const LEASE_PROPERTIES = {
  redundancy: { type: 'integer', description: 'Wanted replicas on distinct volumes.' },
  expires: { type: 'integer', description: 'Unix seconds; 0 = never.' },
  autorenew: { type: 'boolean', description: 'Renewed for its original lease when it expires.' },
};
const UL_STATUS = {
  type: 'string',
  enum: ['queued', 'uploading', 'uploaded', 'degraded', 'failed'],
};
const FILE_DETAIL = {
  type: 'object',
  required: [
    'localPath',
    'size',
    'chunkIds',
    'id',
    'redundancy',
    'expires',
    'autorenew',
    'ul_status',
  ],
  properties: {
    localPath: { type: 'string', description: 'The name the file was added under.' },
    size: { type: 'integer' },
    chunkIds: { type: 'array', items: { type: 'string' } },
    id: { type: 'string' },
    ...LEASE_PROPERTIES,
    ul_status: UL_STATUS,
  },
};
const FILE_ITEM = {
  type: 'object',
  required: ['id', 'localPath', 'size', 'redundancy', 'expires', 'autorenew', 'chunkCount'],
  properties: {
    id: { type: 'string' },
    localPath: { type: 'string' },
    size: { type: 'integer' },
    ...LEASE_PROPERTIES,
    chunkCount: { type: 'integer' },
  },
};
const CHUNK_ITEM = {
  type: 'object',
  required: ['id', 'redundancy', 'expires', 'autorenew'],
  properties: { id: { type: 'string' }, ...LEASE_PROPERTIES },
};
const CHUNK_DETAIL = {
  type: 'object',
  required: [
    'belongsToFiles',
    'ul_status',
    'id',
    'redundancy',
    'expires',
    'autorenew',
    'dl_status',
    'length',
  ],
  properties: {
    belongsToFiles: {
      type: 'array',
      description: "[file id, index of the chunk in the file, the file's localPath] per holder.",
      // A triple; OpenAPI 3.0 has no tuples, so: three items, each a string or an integer.
      items: {
        type: 'array',
        minItems: 3,
        maxItems: 3,
        items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    },
    ul_status: UL_STATUS,
    id: { type: 'string' },
    ...LEASE_PROPERTIES,
    dl_status: { type: 'string', enum: ['downloaded', 'missing', 'corrupt', 'repairing'] },
    length: { type: 'integer' },
  },
};

interface PageQuery {
  limit: number;
  cursor?: string;
}

interface UploadQuery {
  name?: string;
  redundancy?: number;
  expires: number;
  autorenew: boolean;
}

function contentLength(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['content-length'];
  return value === undefined ? undefined : Number(value);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The file's bytes as a string in `encoding`; utf-8 refuses bytes that are not UTF-8. */
export function encodeContent(bytes: Buffer, encoding: ContentEncoding): string {
  switch (encoding) {
    case 'utf-8':
      try {
        return strictUtf8.decode(bytes);
      } catch {
        throw new InvalidInputError(
          'encoding: the file is not valid UTF-8 text; ask for base64, hex or binary',
        );
      }
    case 'base64':
      return bytes.toString('base64');
    case 'hex':
      return bytes.toString('hex');
    case 'binary':
      return bytes.toString('latin1');
  }
}

async function wholeContent(options: StorageRouteOptions, id: string): Promise<Buffer> {
  const size = options.storage.fileSize(id);
  if (size > options.maxContentSize) {
    throw new PayloadTooLargeError(
      `file ${id} is ${size} bytes, more than --storage.max-content-size (${options.maxContentSize}) answers as one string: download it from GET /v1/api/storage/files/${id}/raw`,
    );
  }
  const parts: Buffer[] = [];
  for await (const part of options.storage.content(id)) parts.push(part);
  return Buffer.concat(parts, size);
}

/**
 * A download of file `id` (`bytes` as its response sends them), ended with the connection when
 * its client takes no bytes for `--storage.download-idle-timeout`.
 */
function download(
  options: StorageRouteOptions,
  id: string,
  bytes: Iterable<Buffer> | AsyncIterable<Buffer>,
  length: number,
  contentType?: string,
): RawContent {
  const idleMs = options.downloadIdleTimeoutMs;
  const stream = downloadStream(bytes, {
    idleMs,
    pieceBytes: DOWNLOAD_PIECE_BYTES,
    stalled: () => {
      options.logger.info('download ended: its client took no bytes', { file: id, idleMs });
      return new Error(
        `download of ${id} ended: the client took no bytes for ${idleMs} ms (set by --storage.download-idle-timeout)`,
      );
    },
  });
  return new RawContent(stream, length, contentType);
}

export function storageResource(options: StorageRouteOptions): RestResource {
  const { storage } = options;
  return {
    name: 'storage',
    description: 'Files and chunks of the storage layer.',
    routes: [
      restRoute<unknown, unknown, PageQuery>({
        method: 'GET',
        path: '/storage/files',
        operationId: 'listFiles',
        summary: 'Metadata of the stored files, a page at a time, in id order.',
        querystring: PAGE_QUERY,
        response: {
          type: 'object',
          required: ['files'],
          properties: { files: { type: 'array', items: FILE_ITEM }, nextCursor: NEXT_CURSOR },
        },
        handle: ({ query }) => {
          const page = storage.list(query.cursor, query.limit);
          return { files: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
        },
      }),
      restRoute<Readable, unknown, UploadQuery>({
        method: 'POST',
        path: '/storage/files',
        operationId: 'uploadFile',
        summary: 'Stores the request body (application/octet-stream, streamed) as a file.',
        description:
          'Answers once every chunk is durable on its volumes and the file is listed. 413 past --storage.max-upload-size, 408 when no bytes come for --storage.upload-idle-timeout, 507 when no volume can take the bytes (full, read-only or gone); a refused upload lists nothing.',
        rawBody: true,
        querystring: {
          type: 'object',
          properties: {
            name: {
              type: 'string',
              maxLength: 4096,
              description: 'The localPath to list the file under.',
            },
            redundancy: { type: 'integer', minimum: 1, maximum: MAX_REDUNDANCY },
            expires: {
              type: 'integer',
              minimum: 0,
              default: 0,
              description: 'Unix seconds; 0 = never.',
            },
            autorenew: { type: 'boolean', default: false },
          },
          additionalProperties: false,
        },
        response: { type: 'object', required: ['file'], properties: { file: FILE_DETAIL } },
        errors: [408, 507],
        handle: async ({ body, query, headers }): Promise<{ file: FileDetail }> => {
          if (!(body instanceof Readable)) {
            throw new InvalidInputError('body: send the file as application/octet-stream');
          }
          // Bytes are stored as they arrive: a compressed body would be stored compressed.
          const encoding = headers['content-encoding'];
          if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
            throw new InvalidInputError(
              `Content-Encoding ${encoding}: send the file's bytes as they are, without an encoding`,
            );
          }
          // A name is shown in tables and logs: control characters could rewrite a terminal.
          if (query.name !== undefined && CONTROL_CHARACTER.test(query.name)) {
            throw new InvalidInputError('name: control characters are not allowed in a file name');
          }
          try {
            const file = await storage.upload(body, {
              localPath: query.name ?? '',
              redundancy: query.redundancy ?? options.defaultRedundancy,
              expires: query.expires,
              autorenew: query.autorenew,
              declaredSize: contentLength(headers),
            });
            return { file };
          } catch (error) {
            // The client went away mid-body: its fault, not a fault of the node to log as one.
            if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') {
              throw new InvalidInputError('body: the client closed the connection mid-upload', {
                cause: error,
              });
            }
            throw error;
          }
        },
      }),
      restRoute<unknown, { id: string }>({
        method: 'GET',
        path: '/storage/files/:id',
        operationId: 'getFile',
        summary: "One file's metadata and upload status.",
        params: ID_PARAMS,
        querystring: NO_QUERY,
        response: { type: 'object', required: ['file'], properties: { file: FILE_DETAIL } },
        errors: [404],
        handle: ({ params }) => ({ file: storage.fileDetail(params.id) }),
      }),
      restRoute<unknown, { id: string }, { encoding: ContentEncoding }>({
        method: 'GET',
        path: '/storage/files/:id/content',
        operationId: 'getFileContent',
        summary:
          "A file's bytes as one string: utf-8 (default), base64, binary (one char per byte) or hex.",
        description:
          'Every chunk is verified by its hash; a bad replica is served from a good one and repaired. Files above --storage.max-content-size answer 413: read them from /raw. A client that takes no bytes of the answer for --storage.download-idle-timeout (default 60 s) is disconnected.',
        params: ID_PARAMS,
        querystring: {
          type: 'object',
          properties: {
            encoding: { type: 'string', enum: [...CONTENT_ENCODINGS], default: 'utf-8' },
          },
          additionalProperties: false,
        },
        response: { type: 'object', required: ['data'], properties: { data: { type: 'string' } } },
        errors: [404, 413, 503],
        handle: async ({ params, query }) => {
          const data = encodeContent(await wholeContent(options, params.id), query.encoding);
          // As bytes in pieces, so a client that stops reading cannot hold the answer for ever.
          const json = Buffer.from(JSON.stringify({ data }));
          return download(options, params.id, [json], json.length, JSON_CONTENT_TYPE);
        },
      }),
      restRoute<unknown, { id: string }>({
        method: 'GET',
        path: '/storage/files/:id/raw',
        operationId: 'downloadFile',
        summary: "A file's bytes as application/octet-stream, streamed chunk by chunk (any size).",
        description:
          'Each chunk is verified before it is sent; should no replica of a chunk be intact, the connection ends before Content-Length bytes (503 when it is the first chunk). A client that takes no bytes for --storage.download-idle-timeout (default 60 s) is disconnected the same way.',
        params: ID_PARAMS,
        querystring: NO_QUERY,
        produces: ['application/octet-stream'],
        response: { type: 'string', format: 'binary' },
        errors: [404, 503],
        handle: ({ params }) =>
          download(options, params.id, storage.content(params.id), storage.fileSize(params.id)),
      }),
      restRoute<unknown, { id: string }>({
        method: 'DELETE',
        path: '/storage/files/:id',
        operationId: 'deleteFile',
        summary: 'Removes a file and the chunks no other file holds.',
        params: ID_PARAMS,
        querystring: NO_QUERY,
        response: {
          type: 'object',
          required: ['data'],
          properties: {
            data: {
              type: 'object',
              required: ['removed'],
              properties: { removed: { type: 'string' } },
            },
          },
        },
        errors: [404],
        handle: async ({ params }) => {
          await storage.remove(params.id);
          return { data: { removed: params.id } };
        },
      }),
      restRoute<unknown, unknown, PageQuery>({
        method: 'GET',
        path: '/storage/chunks',
        operationId: 'listChunks',
        summary: 'Metadata of the stored chunks, a page at a time, in id order.',
        querystring: PAGE_QUERY,
        response: {
          type: 'object',
          required: ['chunks'],
          properties: { chunks: { type: 'array', items: CHUNK_ITEM }, nextCursor: NEXT_CURSOR },
        },
        handle: ({ query }) => {
          const page = storage.chunks(query.cursor, query.limit);
          return {
            chunks: page.items,
            ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
          };
        },
      }),
      restRoute<unknown, { id: string }>({
        method: 'GET',
        path: '/storage/chunks/:id',
        operationId: 'getChunk',
        summary: "One chunk's metadata: the files holding it and the state of its replicas.",
        params: ID_PARAMS,
        querystring: NO_QUERY,
        response: {
          type: 'object',
          required: ['chunk'],
          properties: {
            chunk: { type: 'object', required: ['chunk'], properties: { chunk: CHUNK_DETAIL } },
          },
        },
        errors: [404],
        handle: ({ params }) => ({ chunk: { chunk: storage.chunkDetail(params.id) } }),
      }),
    ],
  };
}
