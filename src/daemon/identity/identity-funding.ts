/**
 * Gas money for the node's identity key on the embedded dev chain. The identity is the node
 * key, made at random on the first start, so the dev genesis cannot fund it (its hash would
 * differ per data directory, and data directories made before the key existed would no longer
 * match their genesis). A transfer at every first start would instead put a transaction into
 * block 1 of every fresh dev chain and spend a dev account's nonce 0, which tools and tests
 * that sign their own transactions rely on. So the node funds the identity when it first needs
 * to spend: before the identity sends a transaction, `ensureFunded` tops it up from the last
 * dev account (unlocked in dev mode) if it holds less than {@link IDENTITY_MIN_BALANCE}, and
 * waits until the transfer is mined. On other chains the operator funds the identity address.
 */
import { createAddressFromString, type Address } from '@ethereumjs/util';
import type { EventBus } from '../events/event-bus.js';
import { SerialQueue } from '../txpool/serial-queue.js';

const ETHER = 10n ** 18n;
/** Below this balance the identity is topped up before it spends. */
export const IDENTITY_MIN_BALANCE = 1n * ETHER;
/** What one top-up transfers. */
export const IDENTITY_TOP_UP = 100n * ETHER;
/** Gas of a plain transfer. */
const TRANSFER_GAS = 21_000n;

export interface IdentityFundingDeps {
  /** Only on the embedded dev chain in dev mode, where the dev accounts are funded and unlocked. */
  enabled: boolean;
  /** The identity key; its address is read on first use (deriving it costs the first start). */
  identity: { readonly address: string };
  /** The dev account that pays (0x-hex). */
  funder: string;
  balanceAtHead(address: Address): Promise<bigint>;
  /** Signs with the funder's unlocked key and submits; resolves to the 0x hash. */
  send(fields: { from: string; to: string; value: bigint; gasLimit: bigint }): Promise<string>;
  bus: EventBus;
}

export class IdentityFunding {
  private readonly serial = new SerialQueue();

  constructor(private readonly deps: IdentityFundingDeps) {}

  /** Makes sure the identity can pay for a transaction; resolves once a top-up is mined. */
  ensureFunded(): Promise<void> {
    if (!this.deps.enabled) return Promise.resolve();
    return this.serial.run(async () => {
      const identity = createAddressFromString(this.deps.identity.address);
      if ((await this.deps.balanceAtHead(identity)) >= IDENTITY_MIN_BALANCE) return;
      const mined = this.nextInclusion();
      try {
        const hash = await this.deps.send({
          from: this.deps.funder,
          to: identity.toString(),
          value: IDENTITY_TOP_UP,
          gasLimit: TRANSFER_GAS,
        });
        await mined.of(hash);
      } finally {
        mined.stop();
      }
    });
  }

  /**
   * Watches committed blocks from before the transfer is submitted, so a block that lands
   * between submission and waiting is not missed.
   */
  private nextInclusion(): { of(hash: string): Promise<void>; stop(): void } {
    const seen = new Set<string>();
    let waiting: { hash: string; resolve: () => void } | undefined;
    const unsubscribe = this.deps.bus.onBlock(({ receipts }) => {
      for (const receipt of receipts) {
        const hash = `0x${Buffer.from(receipt.transactionHash).toString('hex')}`;
        seen.add(hash);
        if (waiting?.hash === hash) waiting.resolve();
      }
    });
    return {
      of: (hash) =>
        seen.has(hash)
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              waiting = { hash, resolve };
            }),
      stop: unsubscribe,
    };
  }
}
