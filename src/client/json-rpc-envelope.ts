import { RpcResponseError } from './errors.js';

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Returns the result of a response or throws its error as `RpcResponseError`. */
export function unwrapResponse<T>(response: JsonRpcResponse): T {
  if (response.error)
    throw new RpcResponseError(response.error.code, response.error.message, response.error.data);
  return response.result as T;
}
