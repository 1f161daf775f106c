/**
 * A transaction in JSON-RPC form (the shape of `eth_getTransactionByHash`), as geth gives it for
 * a transaction not yet in a block: block fields null, and `gasPrice` equal to the fee cap for
 * fee-market transactions.
 */
import { bigIntToHex, bytesToBigInt, bytesToHex } from '@ethereumjs/util';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { PooledTransaction } from './types.js';

/** JSON-RPC transaction object; optional members appear only for the types that have them. */
export interface RpcTransaction {
  blockHash: string | null;
  blockNumber: string | null;
  transactionIndex: string | null;
  hash: string;
  type: string;
  from: string;
  to: string | null;
  nonce: string;
  value: string;
  gas: string;
  gasPrice: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  input: string;
  chainId?: string;
  accessList?: unknown[];
  authorizationList?: RpcAuthorization[];
  v: string;
  r: string;
  s: string;
  yParity?: string;
}

/** One EIP-7702 authorization as geth gives it: its numbers as quantities, without leading zeros. */
export interface RpcAuthorization {
  chainId: string;
  address: string;
  nonce: string;
  yParity: string;
  r: string;
  s: string;
}

/**
 * The authorization list of a set-code transaction, or undefined for every other type. The
 * library's own JSON form keeps each number's bytes as they were signed (`0x` for zero), which
 * quantity parsers such as ethers' refuse.
 */
export function authorizationListJson(tx: TypedTransaction): RpcAuthorization[] | undefined {
  if (!('authorizationList' in tx)) return undefined;
  const quantityOf = (bytes: Uint8Array) => bigIntToHex(bytesToBigInt(bytes));
  return tx.authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
    chainId: quantityOf(chainId),
    address: bytesToHex(address),
    nonce: quantityOf(nonce),
    yParity: quantityOf(yParity),
    r: quantityOf(r),
    s: quantityOf(s),
  }));
}

/** Chain id of a legacy signature, or `undefined` when it predates EIP-155. */
function legacyChainId(v: bigint): bigint | undefined {
  return v === 27n || v === 28n ? undefined : (v - 35n) / 2n;
}

function feeFields(
  tx: TypedTransaction,
): Pick<RpcTransaction, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'> {
  if ('maxFeePerGas' in tx) {
    return {
      gasPrice: bigIntToHex(tx.maxFeePerGas),
      maxFeePerGas: bigIntToHex(tx.maxFeePerGas),
      maxPriorityFeePerGas: bigIntToHex(tx.maxPriorityFeePerGas),
    };
  }
  return { gasPrice: bigIntToHex(tx.gasPrice) };
}

/** Renders a pooled transaction as a JSON-RPC transaction object with null block fields. */
export function pendingTransactionJson(pooled: PooledTransaction): RpcTransaction {
  const { tx } = pooled;
  const v = tx.v ?? 0n;
  const json = tx.toJSON();
  const authorizationList = authorizationListJson(tx);
  const typed = 'chainId' in tx;
  const chainId = typed ? tx.chainId : legacyChainId(v);
  return {
    blockHash: null,
    blockNumber: null,
    transactionIndex: null,
    hash: pooled.hashHex,
    type: bigIntToHex(BigInt(tx.type)),
    from: pooled.senderHex,
    to: tx.to?.toString() ?? null,
    nonce: bigIntToHex(tx.nonce),
    value: bigIntToHex(tx.value),
    gas: bigIntToHex(tx.gasLimit),
    ...feeFields(tx),
    input: bytesToHex(tx.data),
    ...(chainId === undefined ? {} : { chainId: bigIntToHex(chainId) }),
    ...(json.accessList === undefined ? {} : { accessList: json.accessList }),
    ...(authorizationList === undefined ? {} : { authorizationList }),
    v: bigIntToHex(v),
    r: bigIntToHex(tx.r ?? 0n),
    s: bigIntToHex(tx.s ?? 0n),
    ...(typed ? { yParity: bigIntToHex(v) } : {}),
  };
}
