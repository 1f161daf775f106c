/**
 * The node's error hierarchy. Every failure the node reports to a caller is one of these
 * classes; the transports translate them in exactly one place each
 * (`rpc/error-mapping.ts` for JSON-RPC codes, the REST layer for HTTP statuses).
 * Messages are short and keep geth's wording where clients match on it.
 */
export interface NodeErrorOptions {
  /** Extra facts for logs and the `data` field of a JSON-RPC error. */
  data?: unknown;
  cause?: unknown;
}

export abstract class NodeError extends Error {
  readonly data?: unknown;

  constructor(message: string, options: NodeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.data = options.data;
  }
}

/** The caller sent something malformed: a parameter, a field, a flag value. */
export class InvalidInputError extends NodeError {}

/** A named thing (block, transaction, filter, file, contract) does not exist. */
export class NotFoundError extends NodeError {}

/** A transaction was refused before inclusion (nonce too low, insufficient funds, ...). */
export class TransactionRejectedError extends NodeError {}

/**
 * A transaction was pooled but cannot be included yet: it waits behind a nonce gap
 * (EIP-7966's "not ready", `data` its hash).
 */
export class TransactionNotReadyError extends NodeError {}

/** A pooled transaction was not included within the wait asked for (`data` its hash). */
export class InclusionTimeoutError extends NodeError {}

/** EVM execution reverted; `data` carries the revert bytes as a 0x-hex string. */
export class ExecutionRevertedError extends NodeError {
  constructor(revertData: string, reason?: string) {
    super(reason ? `execution reverted: ${reason}` : 'execution reverted', { data: revertData });
  }
}

/**
 * Why `eth_simulateV1` refused a whole simulation: a call that is not a valid transaction in
 * its block, blocks out of order, or too many of them. Each has its own JSON-RPC code in the
 * execution-apis (`rpc/error-mapping.ts`).
 */
export type SimulationFailure =
  | 'nonceTooLow'
  | 'nonceTooHigh'
  | 'baseFeeTooLow'
  | 'intrinsicGas'
  | 'insufficientFunds'
  | 'blockGasLimitReached'
  | 'blockNumberOrder'
  | 'blockTimestampOrder'
  | 'clientLimitExceeded'
  | 'invalidTransaction';

/** A simulation `eth_simulateV1` refuses, and why. */
export class SimulationRefusedError extends NodeError {
  constructor(
    readonly failure: SimulationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A configured limit was hit; the message names the limit and the flag that sets it. */
export class LimitExceededError extends NodeError {}

/** A request body over its configured size (HTTP 413 on REST; the message names the flag). */
export class PayloadTooLargeError extends LimitExceededError {}

/** A request body that stopped arriving for longer than its configured wait (HTTP 408 on REST). */
export class RequestTimeoutError extends LimitExceededError {}

/** The caller must authenticate (token) or call from loopback. */
export class UnauthorizedError extends NodeError {}

/** The method or operation exists in the spec but this node does not support it. */
export class UnsupportedError extends NodeError {}

/** The request conflicts with the current state (e.g. the datadir is locked by another daemon). */
export class ConflictError extends NodeError {}

/** A server-side failure that is not the caller's fault and has no better class. */
export class ServerError extends NodeError {}

/** The store could not be written (disk full, I/O error); nothing of the write is visible. */
export class StorageError extends ServerError {}

/** A store file is missing, truncated or damaged; the node refuses to run on it. */
export class DamagedStoreError extends ServerError {}

/**
 * No storage volume can take the bytes: full, read-only or gone (HTTP 507). The message names
 * the volume and the reason; nothing of the refused upload is listed.
 */
export class VolumeUnavailableError extends ServerError {}

/** Every replica of a stored chunk is missing or corrupt (HTTP 503 until a repair succeeds). */
export class ChunkLostError extends ServerError {}
