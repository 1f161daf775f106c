/**
 * The one place where failures become REST answers: each error class of `errors.ts` has its
 * HTTP status, and the framework's own failures (schema validation, body limit, malformed
 * JSON) are first told as those classes (a body over the size is a `PayloadTooLargeError`, 413;
 * any other limit is 429). Bodies are `{error: {code, message}}` with `code` the
 * HTTP status. A 500 shows its message only for damage to the data directory (a
 * `DamagedStoreError`, or a read LMDB refused), which names the store and what to do; any other
 * 500 says "internal error" and its detail goes to the log.
 */
import type { RestErrorBody } from '../../shared/rest-api.js';
import { lmdbDamage } from '../chain/lmdb-file.js';
import {
  ChunkLostError,
  ConflictError,
  DamagedStoreError,
  ExecutionRevertedError,
  InvalidInputError,
  LimitExceededError,
  NodeError,
  NotFoundError,
  PayloadTooLargeError,
  RequestTimeoutError,
  TransactionRejectedError,
  UnauthorizedError,
  UnsupportedError,
  VolumeUnavailableError,
} from '../../shared/errors.js';

export interface RestErrorAnswer {
  status: number;
  body: RestErrorBody;
}

/** The subset of fastify's errors this module reads. */
interface FrameworkError {
  code?: string;
  statusCode?: number;
  message: string;
  validation?: unknown;
}

export const INTERNAL_ERROR_MESSAGE = 'internal error';

const STATUS_BY_CLASS: ReadonlyArray<[abstract new (...args: never[]) => NodeError, number]> = [
  [InvalidInputError, 400],
  [ExecutionRevertedError, 400],
  [UnauthorizedError, 401],
  [NotFoundError, 404],
  [ConflictError, 409],
  [TransactionRejectedError, 409],
  // Before their parent class: a body over the size is 413, one that stalls 408, any other
  // limit 429.
  [PayloadTooLargeError, 413],
  [RequestTimeoutError, 408],
  [LimitExceededError, 429],
  [UnsupportedError, 501],
  [ChunkLostError, 503],
  [VolumeUnavailableError, 507],
];

function statusOf(error: NodeError): number {
  return STATUS_BY_CLASS.find(([errorClass]) => error instanceof errorClass)?.[1] ?? 500;
}

/** Tells a failure of fastify (not of a handler) as one of the node's error classes. */
function fromFramework(
  error: FrameworkError,
  maxBodySize: number,
  bodyType: string,
): NodeError | undefined {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new PayloadTooLargeError(
      `request body larger than ${maxBodySize} bytes (set by --rest.max-body-size)`,
    );
  }
  if (error.validation !== undefined) return new InvalidInputError(error.message);
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new InvalidInputError(`request body must be ${bodyType} (Content-Type)`);
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new InvalidInputError(error.message);
  }
  return undefined;
}

/**
 * The status and body of the answer to `error`.
 *
 * @param maxBodySize the `--rest.max-body-size` in force, named in the 413 message.
 * @param bodyType the content type the route takes, named when a request sent another.
 */
export function restErrorOf(
  error: unknown,
  maxBodySize: number,
  bodyType = 'application/json',
): RestErrorAnswer {
  const nodeError =
    error instanceof NodeError
      ? error
      : error instanceof Error
        ? (lmdbDamage(error) ?? fromFramework(error as FrameworkError, maxBodySize, bodyType))
        : undefined;
  const status = nodeError ? statusOf(nodeError) : 500;
  const shown =
    nodeError !== undefined && (status !== 500 || nodeError instanceof DamagedStoreError);
  const message = shown ? nodeError.message : INTERNAL_ERROR_MESSAGE;
  return { status, body: { error: { code: status, message } } };
}

/** The schema of every error body, for the OpenAPI document. */
export const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer', description: 'The HTTP status.' },
        message: { type: 'string', description: 'What was wrong; names the field for 400.' },
      },
    },
  },
} as const;
