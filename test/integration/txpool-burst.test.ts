/**
 * Bursts of raw transactions in JSON-RPC batches: neighbouring eth_sendRawTransaction calls of a
 * batch are admitted together (docs/json-rpc.md), in batch order, while other calls still see
 * the batch's earlier calls done; one client's batches that interleave keep every sender's
 * transactions, and the blocks keep nonce order.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { devWallet, signDynamicFeeTx, waitForReceipt } from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const recipient = DEV_ADDRESSES[3];

type Reply = { id: number; result?: unknown; error?: { message: string } };
type TransactionView = {
  nonce: string;
  from: string;
  blockNumber: string;
  transactionIndex: string;
};

describe('transaction bursts in batches', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '300ms']);
  });
  afterAll(() => daemon?.stop());

  /** Sends `calls` as one batch; each answer's result, or its error message. */
  async function batch(calls: Array<[string, unknown[]]>): Promise<unknown[]> {
    const body = calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }));
    const answer = await daemon.rpc.post(JSON.stringify(body));
    const replies = answer.body as Reply[];
    expect(replies.map((reply) => reply.id)).toEqual(calls.map((_, id) => id));
    return replies.map((reply) => reply.result ?? reply.error!.message);
  }

  const sign = (wallet: ReturnType<typeof devWallet>, nonces: number[]) =>
    Promise.all(
      nonces.map((nonce) => signDynamicFeeTx(wallet, { nonce, to: recipient, value: 1n })),
    );

  it('answers in batch order, and a call after a run of sends sees all of them', async () => {
    const wallet = devWallet(5);
    const [tx0, tx1, tx2, tx3] = await sign(wallet, [0, 1, 2, 3]);
    const answers = await batch([
      ['eth_sendRawTransaction', [tx0]],
      ['eth_sendRawTransaction', [tx1]],
      ['eth_sendRawTransaction', [tx1]],
      ['eth_getTransactionCount', [wallet.address, 'pending']],
      ['eth_sendRawTransaction', [tx3]],
      ['eth_sendRawTransaction', [tx2]],
      ['eth_getTransactionCount', [wallet.address, 'pending']],
      ['eth_sendRawTransaction', ['0x02']],
    ]);
    expect(answers[0]).toMatch(/^0x[0-9a-f]{64}$/);
    expect(answers[1]).toMatch(/^0x[0-9a-f]{64}$/);
    expect(answers[2]).toMatch(/^already known/);
    expect(answers[3]).toBe('0x2');
    expect(answers[4]).toMatch(/^0x[0-9a-f]{64}$/);
    expect(answers[5]).toMatch(/^0x[0-9a-f]{64}$/);
    expect(answers[6]).toBe('0x4');
    expect(answers[7]).toMatch(/^invalid raw transaction/);
    await waitForReceipt(daemon.rpc, answers[4] as string, 30_000);
  });

  it("keeps every sender's transactions when one client's batches interleave, and mines them in nonce order", async () => {
    const wallets = [devWallet(6), devWallet(7), devWallet(8)];
    const signed = await Promise.all(
      wallets.map((wallet) =>
        sign(
          wallet,
          Array.from({ length: 120 }, (_, nonce) => nonce),
        ),
      ),
    );
    // Four batches in flight at once, each taking every fourth nonce of every sender, so each
    // sender's nonces reach the node spread over all four, in no particular order.
    const batches = [0, 1, 2, 3].map((offset) =>
      signed.flatMap((raws) => raws.filter((_, nonce) => nonce % 4 === offset)),
    );
    const answers = await Promise.all(
      batches.map((raws) => batch(raws.map((raw) => ['eth_sendRawTransaction', [raw]]))),
    );
    for (const answer of answers.flat()) expect(answer).toMatch(/^0x[0-9a-f]{64}$/);
    const hashOf = (sender: number, nonce: number) =>
      answers[nonce % 4]![sender * 30 + Math.floor(nonce / 4)] as string;
    for (const [sender, wallet] of wallets.entries()) {
      await waitForReceipt(daemon.rpc, hashOf(sender, 119), 60_000);
      let previous = -1;
      for (let nonce = 0; nonce < 120; nonce++) {
        const tx = await daemon.rpc.call<TransactionView>('eth_getTransactionByHash', [
          hashOf(sender, nonce),
        ]);
        expect(BigInt(tx.nonce)).toBe(BigInt(nonce));
        expect(tx.from.toLowerCase()).toBe(wallet.address.toLowerCase());
        const position = Number(tx.blockNumber) * 1_000_000 + Number(tx.transactionIndex);
        expect(position).toBeGreaterThan(previous);
        previous = position;
      }
    }
  });
});
