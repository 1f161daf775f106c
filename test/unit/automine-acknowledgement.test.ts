import { describe, expect, it } from '@jest/globals';
import {
  AutomineAcknowledgement,
  type InclusionSignals,
} from '../../src/daemon/txpool/automine-acknowledgement.js';

/** A pool and producer driven by hand: which hashes are pooled and pending, and the mode. */
function fakeSignals() {
  const blocks = new Set<() => void>();
  const rewinds = new Set<() => void>();
  const state = {
    automine: true,
    pending: new Set<string>(),
    queued: new Set<string>(),
    commitBlock(included: string[] = []) {
      for (const hash of included) state.pending.delete(hash);
      for (const listener of blocks) listener();
    },
    rewind() {
      for (const listener of rewinds) listener();
    },
    listeners: () => blocks.size + rewinds.size,
  };
  const signals: InclusionSignals = {
    automine: () => state.automine,
    isPending: (hash) => state.pending.has(hash),
    isPooled: (hash) => state.pending.has(hash) || state.queued.has(hash),
    onBlock: (listener) => (blocks.add(listener), () => blocks.delete(listener)),
    onRewind: (listener) => (rewinds.add(listener), () => rewinds.delete(listener)),
  };
  return { state, signals };
}

/** Whether `promise` has settled once queued callbacks have run. */
async function isSettled(promise: Promise<void>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise<void>((resolve) => setImmediate(resolve));
  return settled;
}

describe('automine acknowledgement', () => {
  it('answers at once without automine, and for a transaction behind a nonce gap', async () => {
    const { state, signals } = fakeSignals();
    const acknowledgement = new AutomineAcknowledgement(signals);
    state.queued.add('0xgap');
    expect(await isSettled(acknowledgement.settled('0xgap'))).toBe(true);
    state.automine = false;
    state.pending.add('0xa');
    expect(await isSettled(acknowledgement.settled('0xa'))).toBe(true);
    acknowledgement.close();
  });

  it('waits for the block that takes the transaction', async () => {
    const { state, signals } = fakeSignals();
    const acknowledgement = new AutomineAcknowledgement(signals);
    state.pending.add('0xa').add('0xb');
    const a = acknowledgement.settled('0xa');
    const b = acknowledgement.settled('0xb');
    expect(await isSettled(a)).toBe(false);
    state.commitBlock(['0xa']);
    expect(await isSettled(a)).toBe(true);
    expect(await isSettled(b)).toBe(false);
    state.commitBlock(['0xb']);
    expect(await isSettled(b)).toBe(true);
    acknowledgement.close();
  });

  it('gives up after a second block that leaves the transaction pooled', async () => {
    const { state, signals } = fakeSignals();
    const acknowledgement = new AutomineAcknowledgement(signals);
    state.pending.add('0xstuck');
    const stuck = acknowledgement.settled('0xstuck');
    state.commitBlock();
    expect(await isSettled(stuck)).toBe(false);
    state.commitBlock();
    expect(await isSettled(stuck)).toBe(true);
    acknowledgement.close();
  });

  it('answers every waiting send when automine stops, at a rewind and at close', async () => {
    const { state, signals } = fakeSignals();
    const acknowledgement = new AutomineAcknowledgement(signals);
    state.pending.add('0xa').add('0xb').add('0xc');
    const a = acknowledgement.settled('0xa');
    acknowledgement.miningModeChanged();
    expect(await isSettled(a)).toBe(false);
    state.automine = false;
    acknowledgement.miningModeChanged();
    expect(await isSettled(a)).toBe(true);
    state.automine = true;
    const b = acknowledgement.settled('0xb');
    state.rewind();
    expect(await isSettled(b)).toBe(true);
    const c = acknowledgement.settled('0xc');
    acknowledgement.close();
    expect(await isSettled(c)).toBe(true);
    expect(state.listeners()).toBe(0);
  });
});
