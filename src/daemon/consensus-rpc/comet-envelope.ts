/**
 * CometBFT's JSON-RPC envelopes. Errors take the code from the node's one mapping
 * (`rpc/error-mapping.ts`) and CometBFT's shape: a fixed message per code and the reason in
 * `data`, e.g. `{code: -32602, message: "Invalid params", data: "failed to parse query: …"}`.
 */
import { toRpcError } from '../rpc/error-mapping.js';
import { RpcErrorCode } from '../rpc/rpc-error.js';

/** Request ids are echoed exactly; CometBFT accepts strings and numbers. */
export type RpcId = string | number;

/** A JSON-RPC error object in CometBFT's shape. */
export interface CometRpcError {
  code: number;
  message: string;
  data: string;
}

const MESSAGE_BY_CODE: ReadonlyMap<number, string> = new Map([
  [RpcErrorCode.parseError, 'Parse error'],
  [RpcErrorCode.invalidRequest, 'Invalid Request'],
  [RpcErrorCode.methodNotFound, 'Method not found'],
  [RpcErrorCode.invalidParams, 'Invalid params'],
  [RpcErrorCode.internalError, 'Internal error'],
  [RpcErrorCode.serverError, 'Server error'],
  [RpcErrorCode.limitExceeded, 'Limit exceeded'],
]);

/** Converts anything thrown; `onInternal` sees errors that are not the node's own. */
export function cometError(error: unknown, onInternal?: (error: unknown) => void): CometRpcError {
  const rpc = toRpcError(error, onInternal);
  return {
    code: rpc.code,
    message: MESSAGE_BY_CODE.get(rpc.code) ?? rpc.message,
    data: rpc.message,
  };
}

/** How every envelope begins, up to its id's text. */
const ENVELOPE_START = '{"jsonrpc":"2.0","id":';
/** The same beginning with the id 0 that `envelopeText` serializes first and then replaces. */
const ZERO_ID_START = `${ENVELOPE_START}0`;

/**
 * An envelope whose id is `idText`, the id's JSON text as the request wrote it
 * (`rpc/exact-ids.ts`): a number JavaScript does not hold exactly is echoed digit for digit.
 */
function envelopeText(
  idText: string,
  member: { result: unknown } | { error: CometRpcError },
): string {
  const text = JSON.stringify({ jsonrpc: '2.0', id: 0, ...member });
  return ENVELOPE_START + idText + text.slice(ZERO_ID_START.length);
}

/** The text of a success response; `idText` is the id's JSON text (`"null"` without one). */
export function successText(idText: string, result: unknown): string {
  return envelopeText(idText, { result });
}

/** The text of an error response; `idText` is the id's JSON text (`"null"` without one). */
export function errorText(idText: string, error: CometRpcError): string {
  return envelopeText(idText, { error });
}

/** Whether a value can be a request id (a string or a finite number). */
export function isRpcId(value: unknown): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}
