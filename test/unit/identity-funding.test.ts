/**
 * IdentityFunding: the identity is topped up from a dev account only on the dev chain, only
 * when it is short, once for concurrent callers, and `ensureFunded` resolves only after the
 * transfer is in a committed block.
 */
import { describe, expect, it } from '@jest/globals';
import { createAddressFromString } from '@ethereumjs/util';
import type { BlockCommittedEvent } from '../../src/daemon/events/event-bus.js';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import {
  IDENTITY_MIN_BALANCE,
  IDENTITY_TOP_UP,
  IdentityFunding,
} from '../../src/daemon/identity/identity-funding.js';

const IDENTITY = createAddressFromString('0x27db3c931d58b18146ebf2ebd36170b2d792ee8b');
const IDENTITY_KEY = { address: IDENTITY.toString() };
const FUNDER = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
const HASH = `0x${'ab'.repeat(32)}`;

/** A committed block holding one receipt for `hash` (only the fields the funding reads). */
function blockWith(hash: string): BlockCommittedEvent {
  return {
    receipts: [{ transactionHash: Buffer.from(hash.slice(2), 'hex') }],
  } as unknown as BlockCommittedEvent;
}

function setup(enabled: boolean, startBalance: bigint) {
  const bus = new EventBus();
  let balance = startBalance;
  const sent: Array<{ from: string; to: string; value: bigint }> = [];
  const funding = new IdentityFunding({
    enabled,
    identity: IDENTITY_KEY,
    funder: FUNDER,
    balanceAtHead: async () => balance,
    send: async (fields) => {
      sent.push(fields);
      // The block comes later, as the consensus engine commits it.
      setImmediate(() => {
        balance += fields.value;
        bus.publishBlock(blockWith(HASH));
      });
      return HASH;
    },
    bus,
  });
  return { funding, sent, balance: () => balance };
}

describe('IdentityFunding', () => {
  it('tops up a short identity from the funder and resolves once the transfer is mined', async () => {
    const { funding, sent, balance } = setup(true, 0n);
    await funding.ensureFunded();
    expect(sent).toEqual([
      { from: FUNDER, to: IDENTITY.toString(), value: IDENTITY_TOP_UP, gasLimit: 21_000n },
    ]);
    expect(balance()).toBe(IDENTITY_TOP_UP);
  });

  it('sends once for concurrent callers, and not at all when the balance suffices', async () => {
    const { funding, sent } = setup(true, IDENTITY_MIN_BALANCE - 1n);
    await Promise.all([funding.ensureFunded(), funding.ensureFunded(), funding.ensureFunded()]);
    expect(sent).toHaveLength(1);
    const rich = setup(true, IDENTITY_MIN_BALANCE);
    await rich.funding.ensureFunded();
    expect(rich.sent).toHaveLength(0);
  });

  it('does nothing off the dev chain', async () => {
    const { funding, sent } = setup(false, 0n);
    await funding.ensureFunded();
    expect(sent).toHaveLength(0);
  });
});
