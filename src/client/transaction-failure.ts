/**
 * Why a mined transaction failed (receipt status 0). A receipt carries no reason, so the call
 * is replayed with `eth_call` on the state its block started from, as `cast run` and block
 * explorers do; the node answers a revert with code 3 and the decoded reason in its message.
 * Transactions earlier in the same block are not replayed, so a failure that depended on them
 * may replay as a success; the answer then says that no reason could be found.
 */
import type { HttpRpcClient } from './http-rpc-client.js';
import { RpcResponseError } from './errors.js';
import { toQuantity, type Hex, type Receipt } from './eth-client.js';

/** JSON-RPC's code for a reverted call (geth, and this node). */
const EXECUTION_REVERTED = 3;

export interface SentCall {
  from: Hex;
  to?: Hex;
  value: bigint;
  data?: Hex;
  gas: bigint;
}

export async function failureReason(
  rpc: Pick<HttpRpcClient, 'call'>,
  call: SentCall,
  receipt: Pick<Receipt, 'blockNumber' | 'gasUsed'>,
): Promise<string> {
  if (receipt.gasUsed >= call.gas) return `out of gas (used all ${call.gas} gas)`;
  const request: Record<string, string> = {
    from: call.from,
    value: toQuantity(call.value),
    gas: toQuantity(call.gas),
  };
  if (call.to !== undefined) request.to = call.to;
  if (call.data !== undefined) request.data = call.data;
  const parent = receipt.blockNumber > 0n ? receipt.blockNumber - 1n : 0n;
  try {
    await rpc.call('eth_call', [request, toQuantity(parent)]);
  } catch (error) {
    if (error instanceof RpcResponseError && error.code === EXECUTION_REVERTED) {
      return error.message;
    }
    throw error;
  }
  return 'no reason found (the call succeeds when replayed on the state before its block)';
}
