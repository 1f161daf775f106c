/** Shared helpers of the txpool tests: an in-memory account state and signed transactions. */
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import type { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import { createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { evmCrypto } from '../../src/daemon/chain/evm-crypto.js';
import { DEFAULT_POOL_LIMITS, TxPool } from '../../src/daemon/txpool/txpool.js';
import type { PoolLimits, PoolStateView, SenderRecoverer } from '../../src/daemon/txpool/types.js';

export const CHAIN_ID = 9000n;
export const GWEI = 1_000_000_000n;
export const ETHER = 10n ** 18n;

/** Chain 9000 at Prague, with the node's crypto (its KZG stand-in lets blob txs be built). */
export const common: Common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, {
  hardfork: Hardfork.Prague,
  customCrypto: evmCrypto,
});

export const key = (i: number): Uint8Array =>
  hexToBytes(`0x${(i + 1).toString(16).padStart(64, '0')}`);
export const address = (i: number): Address => createAddressFromPrivateKey(key(i));
export const RECIPIENT = address(999);

/** Account nonces and balances the tests set directly; everyone starts with 100 ether. */
export class FakeState implements PoolStateView {
  readonly nonces = new Map<string, bigint>();
  readonly balances = new Map<string, bigint>();
  baseFee = GWEI;
  gasLimit = 30_000_000n;

  async getNonce(account: Address): Promise<bigint> {
    return this.nonces.get(account.toString()) ?? 0n;
  }

  async getBalance(account: Address): Promise<bigint> {
    return this.balances.get(account.toString()) ?? 100n * ETHER;
  }

  nextBaseFee(): bigint {
    return this.baseFee;
  }

  blockGasLimit(): bigint {
    return this.gasLimit;
  }

  setNonce(i: number, nonce: bigint): void {
    this.nonces.set(address(i).toString(), nonce);
  }

  setBalance(i: number, balance: bigint): void {
    this.balances.set(address(i).toString(), balance);
  }
}

export interface TxFields {
  nonce: bigint;
  to?: Address | null;
  value?: bigint;
  data?: Uint8Array;
  gasLimit?: bigint;
  /** Legacy (type 0) when set. */
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
}

/** A signed type-2 transaction from test key `from` (type 0 when `gasPrice` is given). */
export function signTx(
  from: number,
  fields: TxFields,
  txCommon: Common = common,
): TypedTransaction {
  const base = {
    nonce: fields.nonce,
    to: fields.to === null ? undefined : (fields.to ?? RECIPIENT),
    value: fields.value ?? 1n,
    data: fields.data ?? new Uint8Array(),
    gasLimit: fields.gasLimit ?? 21_000n,
  };
  if (fields.gasPrice !== undefined) {
    return createLegacyTx({ ...base, gasPrice: fields.gasPrice }, { common: txCommon }).sign(
      key(from),
    );
  }
  return createFeeMarket1559Tx(
    {
      ...base,
      maxFeePerGas: fields.maxFeePerGas ?? 10n * GWEI,
      maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? GWEI,
    },
    { common: txCommon },
  ).sign(key(from));
}

/** A pool over `state` with geth's limits, optionally overridden, and an optional sender recoverer. */
export function newPool(
  state: PoolStateView,
  limits: Partial<PoolLimits> = {},
  senderRecovery?: SenderRecoverer,
): TxPool {
  return new TxPool({
    state,
    chainId: CHAIN_ID,
    minGasPrice: GWEI,
    limits: { ...DEFAULT_POOL_LIMITS, ...limits },
    senderRecovery,
  });
}
