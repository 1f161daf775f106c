/**
 * The one place where the node's errors become JSON-RPC error codes.
 */
import {
  ConflictError,
  ExecutionRevertedError,
  InclusionTimeoutError,
  InvalidInputError,
  LimitExceededError,
  NodeError,
  NotFoundError,
  SimulationRefusedError,
  TransactionNotReadyError,
  TransactionRejectedError,
  type SimulationFailure,
  UnauthorizedError,
  UnsupportedError,
} from '../../shared/errors.js';
import { lmdbDamage } from '../chain/lmdb-file.js';
import { RpcError, RpcErrorCode } from './rpc-error.js';

const CODE_BY_CLASS: ReadonlyArray<[abstract new (...args: never[]) => NodeError, number]> = [
  [ExecutionRevertedError, RpcErrorCode.executionReverted],
  [InvalidInputError, RpcErrorCode.invalidParams],
  [UnauthorizedError, RpcErrorCode.unauthorized],
  [UnsupportedError, RpcErrorCode.serverError],
  [LimitExceededError, RpcErrorCode.limitExceeded],
  [TransactionRejectedError, RpcErrorCode.serverError],
  [TransactionNotReadyError, RpcErrorCode.transactionNotReady],
  [InclusionTimeoutError, RpcErrorCode.inclusionTimeout],
  [NotFoundError, RpcErrorCode.serverError],
  [ConflictError, RpcErrorCode.serverError],
];

/** eth_simulateV1's codes, as the execution-apis and geth give them. */
const SIMULATION_CODES: Record<SimulationFailure, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberOrder: -38020,
  blockTimestampOrder: -38021,
  clientLimitExceeded: -38026,
  invalidTransaction: RpcErrorCode.internalError,
};

/**
 * Converts anything thrown by a handler. Unknown errors become `-32603` with a generic message
 * (their detail goes to the log, not to the caller); `onInternal` receives them for logging.
 * An LMDB error (a store's file damaged) is logged the same way and answered as -32000 saying so.
 */
export function toRpcError(error: unknown, onInternal?: (error: unknown) => void): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof SimulationRefusedError) {
    return new RpcError(SIMULATION_CODES[error.failure], error.message, error.data);
  }
  if (error instanceof NodeError) {
    const entry = CODE_BY_CLASS.find(([errorClass]) => error instanceof errorClass);
    return new RpcError(entry ? entry[1] : RpcErrorCode.serverError, error.message, error.data);
  }
  onInternal?.(error);
  const damage = lmdbDamage(error);
  if (damage !== undefined) return new RpcError(RpcErrorCode.serverError, damage.message);
  return new RpcError(RpcErrorCode.internalError, 'internal error');
}
