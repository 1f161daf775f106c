/**
 * Transactions of impersonated accounts (`hardhat_impersonateAccount`,
 * `anvil_autoImpersonateAccount`; `docs/dev-methods.md`): sent from an address whose key the
 * node does not have, so they carry a stand-in signature instead of a real one.
 *
 * The stand-in binds the sender: r is the sender's address as a number, s is 1, the parity 0
 * (legacy: v of EIP-155 with parity 0). No signing key gives s = 1 with r equal to an address
 * but by a collision of 2^-160, so `daemon check` can accept a stored sender that such a
 * signature names without recovering anything. The transaction object answers its sender
 * from that field, never by recovery.
 */
import type { Common } from '@ethereumjs/common';
import { TransactionType, createTx, type TxData, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt, type Address } from '@ethereumjs/util';

/** `data` with the stand-in signature of `sender`, whose sender is `sender`. */
export function impersonatedTransaction(
  data: TxData[TransactionType],
  sender: Address,
  common: Common,
): TypedTransaction {
  const legacy = createTx(data, { common }).type === TransactionType.Legacy;
  const v = legacy ? common.chainId() * 2n + 35n : 0n;
  const tx = createTx(
    { ...data, v, r: bytesToBigInt(sender.bytes), s: 1n },
    { common, freeze: false },
  );
  tx.getSenderAddress = () => sender;
  return tx;
}

/** Whether `tx` carries the stand-in signature of `sender`. */
export function isImpersonationSignature(tx: TypedTransaction, sender: Address): boolean {
  return tx.s === 1n && tx.r === bytesToBigInt(sender.bytes);
}
