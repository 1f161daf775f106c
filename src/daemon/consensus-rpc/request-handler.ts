/**
 * JSON-RPC 2.0 requests in CometBFT's dialect: single requests and batches, ids echoed exactly,
 * requests without an id (notifications) answered with nothing.
 */
import { exceedsJsonDepth, nestingTooDeepMessage } from '../rpc/json-depth.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { idTextOf, noteExactIds } from '../rpc/exact-ids.js';
import { cometError, errorText, isRpcId, successText } from './comet-envelope.js';

/** The consensus RPC's request limits, from the option table. */
export interface RequestLimits {
  /** Deepest nesting of arrays and objects (`--rpc.max-nesting`), checked before parsing. */
  maxNesting: number;
  /** Most calls in one batch (`--rpc.batch-request-limit`). */
  batchRequestLimit: number;
  /** Largest total response of one batch (`--rpc.batch-response-max-size`). */
  batchResponseMaxSize: number;
}

/**
 * Runs one method; throws the node's errors (or `RpcError`) on failure. `idText` is the
 * request's id as it wrote it (JSON text).
 */
export type MethodCall = (method: string, params: unknown, idText: string) => unknown;

function handleOne(
  request: unknown,
  call: MethodCall,
  onInternal: (error: unknown) => void,
): string | undefined {
  const record =
    typeof request === 'object' && request !== null && !Array.isArray(request)
      ? (request as Record<string, unknown>)
      : undefined;
  const hasId = record !== undefined && isRpcId(record.id);
  const idText = hasId ? idTextOf(record) : 'null';
  try {
    if (record === undefined || record.jsonrpc !== '2.0' || typeof record.method !== 'string') {
      throw new RpcError(
        RpcErrorCode.invalidRequest,
        'expected an object with jsonrpc "2.0", a method name and an id',
      );
    }
    if (record.id !== undefined && record.id !== null && !isRpcId(record.id)) {
      throw new RpcError(RpcErrorCode.invalidRequest, 'id must be a string or a number');
    }
    if (!hasId) return undefined;
    return successText(idText, call(record.method, record.params, idText));
  } catch (error) {
    return errorText(idText, cometError(error, onInternal));
  }
}

/** Answers a request body (or WebSocket message); undefined when nothing is to be sent back. */
export function handleRequestText(
  text: string,
  limits: RequestLimits,
  call: MethodCall,
  onInternal: (error: unknown) => void,
): string | undefined {
  if (exceedsJsonDepth(text, limits.maxNesting)) {
    return refusal(
      RpcErrorCode.invalidRequest,
      nestingTooDeepMessage(limits.maxNesting, '--rpc.max-nesting'),
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // CometBFT puts its JSON decoder's error here; V8's would be runtime text, so ours says it.
    return errorText(
      'null',
      cometError(
        new RpcError(RpcErrorCode.parseError, 'error unmarshaling request: not valid JSON'),
      ),
    );
  }
  noteExactIds(parsed, text);
  if (!Array.isArray(parsed)) return handleOne(parsed, call, onInternal);
  if (parsed.length === 0) {
    return errorText(
      'null',
      cometError(new RpcError(RpcErrorCode.invalidRequest, 'empty batch request')),
    );
  }
  if (parsed.length > limits.batchRequestLimit) {
    return refusal(
      RpcErrorCode.limitExceeded,
      `batch too large: ${parsed.length} calls exceed the limit of ${limits.batchRequestLimit} (--rpc.batch-request-limit)`,
    );
  }
  const replies: string[] = [];
  let size = 2;
  for (const request of parsed) {
    let reply = handleOne(request, call, onInternal);
    if (reply === undefined) continue;
    if (size + reply.length + 1 > limits.batchResponseMaxSize) {
      const id = (request as { id?: unknown } | null)?.id;
      reply = errorText(
        isRpcId(id) ? idTextOf(request) : 'null',
        cometError(
          new RpcError(
            RpcErrorCode.limitExceeded,
            `batch response too large: exceeds ${limits.batchResponseMaxSize} bytes (--rpc.batch-response-max-size)`,
          ),
        ),
      );
    } else {
      size += reply.length + 1;
    }
    replies.push(reply);
  }
  return replies.length === 0 ? undefined : `[${replies.join(',')}]`;
}

function refusal(code: number, message: string): string {
  return errorText('null', cometError(new RpcError(code, message)));
}
