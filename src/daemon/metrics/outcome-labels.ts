/**
 * Bounded label values for outcomes: a label that took free text (an error message, a method
 * name a caller made up) would create a series per distinct text, and one client could grow
 * the scrape without end.
 */
import { TransactionRejectedError } from '../../shared/errors.js';
import { RpcErrorCode } from '../rpc/rpc-error.js';

/** Refusal reasons by the start of the message (geth's wording, see `txpool/admission.ts`). */
const ADMISSION_REASONS: ReadonlyArray<readonly [string, string]> = [
  ['already known', 'already_known'],
  ['nonce too low', 'nonce_too_low'],
  ['nonce has max value', 'nonce_max'],
  ['insufficient funds', 'insufficient_funds'],
  ['replacement transaction underpriced', 'replacement_underpriced'],
  ['transaction underpriced', 'underpriced'],
  ['invalid sender', 'invalid_sender'],
  ['invalid chain id', 'invalid_chain_id'],
  ['oversized data', 'oversized'],
  ['exceeds block gas limit', 'gas_limit'],
  ['intrinsic gas too low', 'intrinsic_gas'],
  ['insufficient gas for floor', 'intrinsic_gas'],
  ['txpool is full', 'pool_full'],
  ['transaction type not supported', 'type_not_supported'],
];

/** Every value the `outcome` label of the admission counter can take. */
export const ADMISSION_OUTCOMES: readonly string[] = [
  'accepted',
  ...new Set(ADMISSION_REASONS.map(([, reason]) => reason)),
  'other_rejection',
  'error',
];

/** `accepted`, the reason of a refusal, or `error` for a failure that is not a refusal. */
export function admissionOutcome(refusal: unknown): string {
  if (refusal === undefined) return 'accepted';
  if (!(refusal instanceof TransactionRejectedError)) return 'error';
  const match = ADMISSION_REASONS.find(([prefix]) => refusal.message.startsWith(prefix));
  return match === undefined ? 'other_rejection' : match[1];
}

const RPC_OUTCOMES = new Map<number, string>([
  [RpcErrorCode.parseError, 'parse_error'],
  [RpcErrorCode.invalidRequest, 'invalid_request'],
  [RpcErrorCode.methodNotFound, 'method_not_found'],
  [RpcErrorCode.invalidParams, 'invalid_params'],
  [RpcErrorCode.internalError, 'internal_error'],
  [RpcErrorCode.serverError, 'server_error'],
  [RpcErrorCode.unauthorized, 'unauthorized'],
  [RpcErrorCode.limitExceeded, 'limit_exceeded'],
  [RpcErrorCode.executionReverted, 'reverted'],
]);

/** `success`, or the name of the JSON-RPC error code (`other_error` for any other code). */
export function rpcOutcome(errorCode: number | undefined): string {
  if (errorCode === undefined) return 'success';
  return RPC_OUTCOMES.get(errorCode) ?? 'other_error';
}
