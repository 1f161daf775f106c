/**
 * The pool's daemon options end to end: the per-sender queue limit, the replacement fee bump and
 * the lifetime of queued transactions, set as `daemon start` flags.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JsonRpcProvider, Network, NonceManager } from 'ethers';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import {
  DEV_CHAIN_ID,
  devWallet,
  MIN_GAS_PRICE,
  signDynamicFeeTx,
  waitForReceipt,
} from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const recipient = DEV_ADDRESSES[3];

describe('txpool options', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon([
      '--block-time',
      '1h',
      '--txpool.accountqueue',
      '1',
      '--txpool.pricebump',
      '50',
      '--txpool.lifetime',
      '1s',
    ]);
  });
  afterAll(() => daemon?.stop());

  const send = (raw: string) => daemon.rpc.call<string>('eth_sendRawTransaction', [raw]);

  it('holds one queued transaction per sender and refuses the next', async () => {
    const wallet = devWallet(4);
    await send(await signDynamicFeeTx(wallet, { nonce: 3, to: recipient, value: 1n }));
    await expect(
      send(await signDynamicFeeTx(wallet, { nonce: 4, to: recipient, value: 1n })),
    ).rejects.toThrow('per-sender queue limit 1');
  });

  it('wants a 50% higher fee cap and tip to replace a transaction', async () => {
    const wallet = devWallet(5);
    const fees = (percent: bigint) => ({
      maxFeePerGas: (20n * MIN_GAS_PRICE * percent) / 100n,
      maxPriorityFeePerGas: (MIN_GAS_PRICE * percent) / 100n,
    });
    await send(await signDynamicFeeTx(wallet, { nonce: 0, to: recipient, ...fees(100n) }));
    await expect(
      send(await signDynamicFeeTx(wallet, { nonce: 0, to: recipient, ...fees(140n) })),
    ).rejects.toThrow('needs a 50% higher fee cap and tip');
    await send(await signDynamicFeeTx(wallet, { nonce: 0, to: recipient, ...fees(150n) }));
  });

  it('drops a queued transaction once it has waited longer than the lifetime', async () => {
    const wallet = devWallet(6);
    const hash = await send(await signDynamicFeeTx(wallet, { nonce: 7, to: recipient }));
    expect(await daemon.rpc.call('eth_getTransactionByHash', [hash])).not.toBeNull();
    const deadline = Date.now() + 20_000;
    while ((await daemon.rpc.call('eth_getTransactionByHash', [hash])) !== null) {
      if (Date.now() > deadline) throw new Error('the queued transaction was never dropped');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Pending transactions stay however long they wait for a block.
    expect(await daemon.rpc.call('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
  });
});

describe('the per-sender queue on the dev chain', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '200ms']);
  });
  afterAll(() => daemon?.stop());

  /** Sends `raws` as one JSON-RPC batch; returns each answer's error message or hash. */
  async function sendBatch(raws: string[], firstId: number): Promise<string[]> {
    const body = raws.map((raw, i) => ({
      jsonrpc: '2.0',
      id: firstId + i,
      method: 'eth_sendRawTransaction',
      params: [raw],
    }));
    const answer = await daemon.rpc.post(JSON.stringify(body));
    return (answer.body as Array<{ result?: string; error?: { message: string } }>).map(
      (reply) => reply.result ?? reply.error!.message,
    );
  }

  it('has no bound by default: 200 transactions of one sender whose later half arrives first are all mined', async () => {
    const wallet = devWallet(7);
    const raws = await Promise.all(
      Array.from({ length: 200 }, (_, nonce) =>
        signDynamicFeeTx(wallet, { nonce, to: recipient, value: 1n }),
      ),
    );
    const later = await sendBatch(raws.slice(100), 100);
    const earlier = await sendBatch(raws.slice(0, 100), 0);
    for (const answer of [...later, ...earlier]) expect(answer).toMatch(/^0x[0-9a-f]{64}$/);
    await waitForReceipt(daemon.rpc, later[later.length - 1]!, 30_000);
    expect(
      BigInt(await daemon.rpc.call<string>('eth_getTransactionCount', [wallet.address, 'latest'])),
    ).toBe(200n);
  });

  it("accepts and mines, in nonce order, 200 transactions that ethers' NonceManager sends at once in two batches", async () => {
    // ethers puts up to 100 calls in one HTTP batch, so the 200 sends travel as two batches in
    // flight together, whichever reaches the node first.
    const provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      staticNetwork: Network.from(DEV_CHAIN_ID),
      batchMaxCount: 100,
    });
    try {
      const sender = new NonceManager(devWallet(8).connect(provider));
      const sent = await Promise.all(
        Array.from({ length: 200 }, () =>
          sender.sendTransaction({
            to: recipient,
            value: 1n,
            gasLimit: 21_000n,
            maxFeePerGas: 10n * MIN_GAS_PRICE,
            maxPriorityFeePerGas: MIN_GAS_PRICE,
          }),
        ),
      );
      expect(sent.map((tx) => tx.nonce).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 200 }, (_, nonce) => nonce),
      );
      const byNonce = [...sent].sort((a, b) => a.nonce - b.nonce);
      const receipts = await Promise.all(
        byNonce.map((tx) => waitForReceipt(daemon.rpc, tx.hash, 30_000)),
      );
      const positions = receipts.map((receipt) => [
        Number(receipt.blockNumber),
        Number(receipt.transactionIndex),
      ]);
      const inOrder = positions.every(
        ([block, index], i) =>
          i === 0 ||
          block > positions[i - 1][0] ||
          (block === positions[i - 1][0] && index > positions[i - 1][1]),
      );
      expect(inOrder).toBe(true);
      expect(receipts.every((receipt) => receipt.status === '0x1')).toBe(true);
    } finally {
      provider.destroy();
    }
  });
});
