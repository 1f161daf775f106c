/** Expecting a JSON-RPC error from a client call. */
import { RpcResponseError } from '../../src/client/errors.js';

/**
 * The JSON-RPC error `promise` rejects with; throws when it succeeds or fails otherwise.
 *
 * @example expect((await rpcError(rpc.call('eth_sign', [address, '0x00']))).code).toBe(-32000);
 */
export async function rpcError(promise: Promise<unknown>): Promise<RpcResponseError> {
  const outcome = await promise.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome))
    throw new Error(`expected an error, got the result ${JSON.stringify(outcome.result)}`);
  if (!(outcome.error instanceof RpcResponseError)) throw outcome.error;
  return outcome.error;
}
