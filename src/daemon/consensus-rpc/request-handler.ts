/**
 * JSON-RPC 2.0 requests in CometBFT's dialect: single requests and batches, ids echoed exactly,
 * requests without an id (notifications) answered with nothing.
 */
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { cometError, errorText, isRpcId, successText } from './comet-envelope.js';
import type { RpcId } from './comet-envelope.js';

/** Runs one method; throws the node's errors (or `RpcError`) on failure. */
export type MethodCall = (method: string, params: unknown, id: RpcId) => unknown;

function handleOne(
  request: unknown,
  call: MethodCall,
  onInternal: (error: unknown) => void,
): string | undefined {
  const record =
    typeof request === 'object' && request !== null && !Array.isArray(request)
      ? (request as Record<string, unknown>)
      : undefined;
  const id = record !== undefined && isRpcId(record.id) ? record.id : null;
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
    if (id === null) return undefined;
    return successText(id, call(record.method, record.params, id));
  } catch (error) {
    return errorText(id, cometError(error, onInternal));
  }
}

/** Answers a request body (or WebSocket message); undefined when nothing is to be sent back. */
export function handleRequestText(
  text: string,
  call: MethodCall,
  onInternal: (error: unknown) => void,
): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // CometBFT puts its JSON decoder's error here; V8's would be runtime text, so ours says it.
    return errorText(
      null,
      cometError(
        new RpcError(RpcErrorCode.parseError, 'error unmarshaling request: not valid JSON'),
      ),
    );
  }
  if (!Array.isArray(parsed)) return handleOne(parsed, call, onInternal);
  if (parsed.length === 0) {
    return errorText(
      null,
      cometError(new RpcError(RpcErrorCode.invalidRequest, 'empty batch request')),
    );
  }
  const replies = parsed
    .map((request) => handleOne(request, call, onInternal))
    .filter((reply): reply is string => reply !== undefined);
  return replies.length === 0 ? undefined : `[${replies.join(',')}]`;
}
