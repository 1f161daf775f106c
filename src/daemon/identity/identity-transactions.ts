/**
 * Transactions of the node's identity key (contracts/send, identity register and release, the
 * identity registry's deployment), answered once mined. Each is first run as a call: a
 * transaction that would revert is refused with the revert reason before it costs gas or a
 * nonce, and the call's gas (plus a margin) becomes the gas limit.
 */
import { Address, bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { TransactionFields } from '../accounts/transaction-signer.js';
import type { CallRequest } from '../chain/call.js';
import type { ChainReceipt } from '../chain/types.js';
import { ExecutionRevertedError } from '../../shared/errors.js';
import type { EventBus } from '../events/event-bus.js';

/** What the identity needs to send. */
export interface IdentityTransactionsDeps {
  identity: { address: string; privateKey: Uint8Array };
  /** Makes sure the identity can pay (tops it up on the dev chain). */
  ensureFunded(): Promise<void>;
  estimateGas(request: CallRequest): Promise<bigint>;
  /** Fills, signs with `key` and submits; resolves to the 0x hash. */
  sendWithKey(fields: TransactionFields, key: Uint8Array): Promise<string>;
  bus: EventBus;
}

/** An identity transaction to send: a call of `to`, or a contract creation without it. */
export interface IdentityTransaction {
  to?: string;
  data: Uint8Array;
  value: bigint;
}

/** Gas beyond the estimate, in percent: state read by the call may have moved by inclusion. */
const GAS_MARGIN_PERCENT = 20n;

export class IdentityTransactions {
  constructor(private readonly deps: IdentityTransactionsDeps) {}

  get address(): string {
    return this.deps.identity.address;
  }

  /**
   * Sends `tx` from the identity and resolves with its receipt once mined.
   *
   * @throws ExecutionRevertedError when the transaction would revert (refused before sending)
   *   or reverted once mined.
   */
  async send(tx: IdentityTransaction): Promise<ChainReceipt> {
    await this.deps.ensureFunded();
    const from = toAddress(this.address);
    const to = tx.to === undefined ? undefined : toAddress(tx.to);
    const estimate = await this.deps.estimateGas({ from, to, data: tx.data, value: tx.value });
    const mined = watchInclusion(this.deps.bus);
    try {
      const hash = await this.deps.sendWithKey(
        {
          from: this.address,
          to: tx.to,
          data: tx.data,
          value: tx.value,
          gasLimit: estimate + (estimate * GAS_MARGIN_PERCENT) / 100n,
        },
        this.deps.identity.privateKey,
      );
      const receipt = await mined.of(hash);
      if (receipt.status !== 1) {
        throw new ExecutionRevertedError(
          '0x',
          `transaction ${hash} reverted in block ${receipt.blockNumber}`,
        );
      }
      return receipt;
    } finally {
      mined.stop();
    }
  }
}

/**
 * Watches committed blocks from before the transaction is submitted, so a block that lands
 * between submission and waiting is not missed.
 */
function watchInclusion(bus: EventBus): {
  of(hash: string): Promise<ChainReceipt>;
  stop(): void;
} {
  const seen = new Map<string, ChainReceipt>();
  let waiting: { hash: string; resolve: (receipt: ChainReceipt) => void } | undefined;
  const stop = bus.onBlock(({ receipts }) => {
    for (const receipt of receipts) {
      const hash = bytesToHex(receipt.transactionHash);
      seen.set(hash, receipt);
      if (waiting?.hash === hash) waiting.resolve(receipt);
    }
  });
  return {
    of: (hash) => {
      const receipt = seen.get(hash);
      return receipt
        ? Promise.resolve(receipt)
        : new Promise((resolve) => {
            waiting = { hash, resolve };
          });
    },
    stop,
  };
}

function toAddress(hex: string): Address {
  return new Address(hexToBytes(hex as PrefixedHexString));
}
