/**
 * eth_sendRawTransactionSync (EIP-7966, geth 1.16.6): a send answered with the receipt once a
 * block includes the transaction; code 4 with the hash past the wait, code 5 at once for a
 * transaction behind a nonce gap. viem's `sendRawTransactionSync` is the client.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createWalletClient, http as viemHttp } from 'viem';
import { sendRawTransactionSync } from 'viem/actions';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { devWallet, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('eth_sendRawTransactionSync', () => {
  let daemon: TestDaemon;
  const wallet = devWallet(7);
  const recipient = DEV_ADDRESSES[8].toLowerCase();

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '1s']);
  });
  afterAll(() => daemon?.stop());

  it('answers with the receipt of the block that includes the transaction (viem)', async () => {
    const raw = (await signDynamicFeeTx(wallet, {
      nonce: 0,
      to: recipient,
      value: 5n,
    })) as `0x${string}`;
    const client = createWalletClient({ transport: viemHttp(daemon.endpoints.http as string) });
    const receipt = await sendRawTransactionSync(client, { serializedTransaction: raw });
    expect(receipt.status).toBe('success');
    expect(receipt.to).toBe(recipient);
    expect(
      await daemon.rpc.call('eth_getTransactionReceipt', [receipt.transactionHash]),
    ).toMatchObject({ blockNumber: `0x${receipt.blockNumber.toString(16)}`, status: '0x1' });
  });

  it('answers code 4 with the hash past the wait asked for, and the transaction stays pooled', async () => {
    const raw = await signDynamicFeeTx(wallet, { nonce: 1, to: recipient, value: 6n });
    const error = await rpcError(daemon.rpc.call('eth_sendRawTransactionSync', [raw, '0x1']));
    expect(error.code).toBe(4);
    expect(error.message).toBe(
      'the transaction was added to the pool but not included within 1 ms',
    );
    const hash = error.data as string;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await daemon.rpc.call('eth_getTransactionByHash', [hash])).toMatchObject({ hash });
  });

  it('answers code 5 at once for a transaction behind a nonce gap, naming the nonce needed', async () => {
    const raw = await signDynamicFeeTx(wallet, { nonce: 9, to: recipient, value: 7n });
    const error = await rpcError(daemon.rpc.call('eth_sendRawTransactionSync', [raw, 30_000]));
    expect(error.code).toBe(5);
    expect(error.message).toMatch(/nonce gap, the sender's next nonce is 0x[12]$/);
  });

  it('refuses a wait that is not a number of milliseconds, and bad transactions as the send does', async () => {
    const raw = await signDynamicFeeTx(wallet, { nonce: 2, to: recipient, value: 1n });
    const badWait = await rpcError(daemon.rpc.call('eth_sendRawTransactionSync', [raw, 'soon']));
    expect(badWait.code).toBe(-32602);
    const refused = await rpcError(daemon.rpc.call('eth_sendRawTransactionSync', ['0x1234']));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(/invalid raw transaction/);
  });
});
