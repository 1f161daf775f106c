/**
 * Turns a transaction request of a managed account (eth_sendTransaction, eth_signTransaction,
 * personal_sendTransaction) into a signed transaction, and submits it to the pool.
 *
 * Missing fields are filled as geth fills them: the nonce is the sender's pending nonce, gas is
 * 90 000 (the spec's default), and fees follow EIP-1559 with the suggested tip
 * (eth_maxPriorityFeePerGas) and a fee cap of twice the next base fee plus the tip, which keeps
 * the transaction includable through several blocks of rising base fee. A `gasPrice` makes a
 * legacy (EIP-155) transaction instead, or an EIP-2930 one when an access list is given; an
 * authorization list makes an EIP-7702 transaction (EIP-1559 fees only).
 * Filling, signing and admission run one request at a time, so concurrent sends from one
 * account get consecutive nonces instead of colliding.
 */
import type { Common } from '@ethereumjs/common';
import {
  createTx,
  type AccessList,
  type TransactionType,
  type TxData,
  type TypedTransaction,
} from '@ethereumjs/tx';
import {
  Address,
  MAX_INTEGER,
  MAX_UINT64,
  type EOACode7702AuthorizationList,
  bytesToHex,
  hexToBytes,
  type PrefixedHexString,
} from '@ethereumjs/util';
import { impersonatedTransaction } from '../chain/impersonation-signature.js';
import { InvalidInputError, TransactionRejectedError } from '../../shared/errors.js';
import { SerialQueue } from '../txpool/serial-queue.js';
import type { Admission, TxPoolApi } from '../txpool/types.js';
import type { AccountManager } from './account-manager.js';

/** Gas of a transaction request that names none (spec, Limits). */
export const DEFAULT_TRANSACTION_GAS = 90_000n;

/** A transaction request with its values parsed; absent fields are filled. */
export interface TransactionFields {
  /** The sender, a managed account (`0x` and 40 hex digits). */
  from: string;
  /** Recipient; absent to create a contract. */
  to?: string;
  gasLimit?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  /** Reusing a pending transaction's nonce replaces it (when the fees are bumped enough). */
  nonce?: bigint;
  /** When given, must be the chain's. */
  chainId?: bigint;
  /** EIP-2930: carried by a type 1 transaction when `gasPrice` is given, type 2 otherwise. */
  accessList?: AccessList;
  /** EIP-7702: makes a type 4 transaction, which takes EIP-1559 fees only. */
  authorizationList?: EOACode7702AuthorizationList;
}

/** What the signer reads from the node. */
export interface TransactionSignerDeps {
  /** The chain's Common (chain id, hardfork, crypto). */
  common: Common;
  pool: TxPoolApi;
  /** Base fee of the next block. */
  nextBaseFee(): bigint;
  /** The tip eth_maxPriorityFeePerGas suggests. */
  suggestedTip(): bigint;
  /**
   * Whether sends from `address` go out without its key (development impersonation,
   * `dev/impersonation.ts`). Default: never.
   */
  impersonating?(address: string): boolean;
  /**
   * Resolves when the send of a transaction just pooled may be answered
   * (`txpool/automine-acknowledgement.ts`). Default: at once.
   */
  settled?(hashHex: string): Promise<void>;
}

/** Signs and sends transactions of the node's accounts. */
export class TransactionSigner {
  private readonly serial = new SerialQueue();

  constructor(
    private readonly deps: TransactionSignerDeps,
    private readonly accounts: AccountManager,
  ) {}

  /**
   * Fills and signs `fields` with the unlocked key of `fields.from`.
   *
   * @throws ConflictError if the account is locked; NotFoundError if it is not managed.
   */
  async signWithUnlockedKey(fields: TransactionFields): Promise<TypedTransaction> {
    const key = await this.accounts.unlockedKey(fields.from);
    return this.serial.run(() => this.fillAndSign(fields, key));
  }

  /**
   * Fills, signs with the unlocked key of `fields.from` and submits; returns the hash. An
   * impersonated sender's transaction gets the stand-in signature instead (no key needed) and
   * stays out of the pool's journal, which keeps senders by their public keys.
   */
  async sendWithUnlockedKey(fields: TransactionFields): Promise<string> {
    if (this.deps.impersonating?.(fields.from) === true) {
      const sender = toAddress(fields.from);
      const admission = await this.serial.run(async () =>
        this.deps.pool.admit(
          impersonatedTransaction(await this.fill(fields), sender, this.deps.common),
          { journal: false },
        ),
      );
      return this.acknowledged(admission);
    }
    const key = await this.accounts.unlockedKey(fields.from);
    return this.acknowledged(await this.serial.run(() => this.fillSignAndAdmit(fields, key)));
  }

  /**
   * Decrypts the key of `fields.from` with `passphrase`, fills, signs and submits; the key is
   * zeroed afterwards and the account's unlock state is untouched.
   */
  async sendWithPassphrase(fields: TransactionFields, passphrase: string): Promise<string> {
    const admission = await this.accounts.withPassphrase(fields.from, passphrase, (key) =>
      this.serial.run(() => this.fillSignAndAdmit(fields, key)),
    );
    return this.acknowledged(admission);
  }

  /**
   * Fills, signs with `key` and submits; for a key the node holds outside the keystore (its
   * identity key), through the same queue so its nonces stay consecutive too.
   */
  async sendWithKey(fields: TransactionFields, key: Uint8Array): Promise<string> {
    return this.acknowledged(await this.serial.run(() => this.fillSignAndAdmit(fields, key)));
  }

  /**
   * `fields` filled as a send would fill them, unsigned (eth_fillTransaction): neither a key nor
   * a managed sender is needed, and the nonce is not taken from other sends.
   */
  async fillUnsigned(fields: TransactionFields): Promise<TypedTransaction> {
    return createTx(await this.fill(fields), { common: this.deps.common });
  }

  /** The hash to answer with, once the transaction is on disk and its send may be answered. */
  private async acknowledged({ pooled, durable }: Admission): Promise<string> {
    await durable;
    await this.deps.settled?.(pooled.hashHex);
    return pooled.hashHex;
  }

  /**
   * Fills the nonce, signs and pools, in turn with the other sends (so nonces do not collide);
   * the wait for the journal comes after the turn, so sends share journal commits.
   */
  private async fillSignAndAdmit(fields: TransactionFields, key: Uint8Array): Promise<Admission> {
    const signed = await this.fillAndSign(fields, key);
    return this.deps.pool.admit(signed);
  }

  private async fillAndSign(fields: TransactionFields, key: Uint8Array): Promise<TypedTransaction> {
    return createTx(await this.fill(fields), { common: this.deps.common }).sign(key);
  }

  /** The transaction's fields, missing ones filled (see the module's header). */
  private async fill(fields: TransactionFields): Promise<TxData[TransactionType]> {
    const { common, pool } = this.deps;
    if (fields.chainId !== undefined && fields.chainId !== common.chainId()) {
      throw new TransactionRejectedError(
        `invalid chain id: have ${fields.chainId} want ${common.chainId()}`,
      );
    }
    const base = {
      nonce: fields.nonce ?? (await pool.pendingNonce(toAddress(fields.from))),
      to: fields.to === undefined ? undefined : toAddress(fields.to),
      value: fields.value ?? 0n,
      data: bytesToHex(fields.data ?? new Uint8Array()),
      gasLimit: fields.gasLimit ?? DEFAULT_TRANSACTION_GAS,
    };
    const fees = this.fees(fields);
    refuseUnencodable(
      base.nonce,
      base.gasLimit,
      fees.type === 0 ? fees.gasPrice : fees.maxFeePerGas,
    );
    if (base.to === undefined) {
      refuseOversizedInitcode(fields.data?.length ?? 0, common.param('maxInitCodeSize'));
    }
    const { accessList, authorizationList } = fields;
    if (authorizationList !== undefined) {
      if (fees.type === 0) {
        throw new InvalidInputError(
          'an authorizationList makes an EIP-7702 transaction, which takes maxFeePerGas and maxPriorityFeePerGas, not gasPrice',
        );
      }
      return {
        ...base,
        ...fees,
        type: 4,
        accessList,
        authorizationList,
        chainId: common.chainId(),
      };
    }
    if (fees.type === 0) {
      // A legacy transaction cannot carry a list: with one, geth sends an EIP-2930 one.
      return accessList === undefined
        ? { ...base, ...fees }
        : { ...base, ...fees, type: 1, accessList, chainId: common.chainId() };
    }
    return { ...base, ...fees, accessList, chainId: common.chainId() };
  }

  private fees(
    fields: TransactionFields,
  ):
    | { type: 0; gasPrice: bigint }
    | { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } {
    if (fields.gasPrice !== undefined) {
      if (fields.maxFeePerGas !== undefined || fields.maxPriorityFeePerGas !== undefined) {
        throw new InvalidInputError(
          'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
        );
      }
      return { type: 0, gasPrice: fields.gasPrice };
    }
    const suggested = this.deps.suggestedTip();
    const cap = fields.maxFeePerGas;
    const tip =
      fields.maxPriorityFeePerGas ?? (cap !== undefined && cap < suggested ? cap : suggested);
    const maxFeePerGas = cap ?? min(2n * this.deps.nextBaseFee() + tip, MAX_INTEGER);
    if (maxFeePerGas < tip) {
      throw new InvalidInputError(`maxFeePerGas (${maxFeePerGas}) < maxPriorityFeePerGas (${tip})`);
    }
    return { type: 2, maxFeePerGas, maxPriorityFeePerGas: tip };
  }
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * Refuses, in geth's words, the fields EthereumJS cannot put in a transaction (it would throw
 * its own error text): a nonce of 2^64-1 (EIP-2681), and a fee whose `gas × price` exceeds a
 * uint256, which no balance could pay.
 */
function refuseUnencodable(nonce: bigint, gasLimit: bigint, price: bigint): void {
  if (nonce >= MAX_UINT64) throw new TransactionRejectedError('nonce has max value');
  if (gasLimit * price > MAX_INTEGER) {
    throw new TransactionRejectedError('insufficient funds for gas * price + value');
  }
}

/** EIP-3860, in geth's words: a creation's init code may be at most `limit` bytes. */
function refuseOversizedInitcode(size: number, limit: bigint): void {
  if (BigInt(size) > limit) {
    throw new TransactionRejectedError(
      `max initcode size exceeded: code size ${size}, limit ${limit}`,
    );
  }
}

function toAddress(hex: string): Address {
  return new Address(hexToBytes(hex as PrefixedHexString));
}

/** The hash to answer with, once the pool has the transaction on disk. */
