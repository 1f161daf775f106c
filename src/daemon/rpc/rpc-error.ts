/** A JSON-RPC 2.0 error object, ready to put on the wire. */
export const RpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverError: -32000,
  unauthorized: -32001,
  limitExceeded: -32005,
  executionReverted: 3,
  /** EIP-7966: the transaction was not included within the wait. */
  inclusionTimeout: 4,
  /** EIP-7966: the transaction was pooled but cannot be included yet. */
  transactionNotReady: 5,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
