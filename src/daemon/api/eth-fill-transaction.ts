/**
 * eth_fillTransaction (geth, execution-apis): a transaction request with its missing fields
 * filled as eth_sendTransaction would fill them, returned unsigned for the caller to sign
 * elsewhere. Unlike a send, a missing gas limit is estimated (as geth does here), since the
 * transaction is meant to be signed as it is; nothing is signed and no nonce is reserved.
 */
import type { TransactionSigner } from '../accounts/transaction-signer.js';
import { callerOf, defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { toCallRequest } from './call-request.js';
import {
  toTransactionFields,
  transactionObjectSchema,
  type TransactionObject,
} from './eth-accounts.js';
import { formatTransaction, hex } from './formatters.js';
import { toAddress } from './hex-schemas.js';
import type { ChainView } from './services.js';

export function ethFillTransactionMethod(
  { chain }: ChainView,
  signer: TransactionSigner,
): MethodDefinition {
  return defineMethod<[TransactionObject]>({
    name: 'eth_fillTransaction',
    params: [{ name: 'transaction', schema: transactionObjectSchema }],
    handler: async ([request], context) => {
      const fields = toTransactionFields(request);
      const gasLimit =
        fields.gasLimit ??
        (await chain.estimateGas(toCallRequest(request), chain.head().number, callerOf(context)));
      const unsigned = await signer.fillUnsigned({ ...fields, gasLimit });
      return {
        raw: hex(unsigned.serialize()),
        tx: formatTransaction(unsigned, toAddress(request.from)),
      };
    },
  });
}
