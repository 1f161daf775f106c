import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { devWallet, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A block time long enough that nothing is committed while the test looks at the pool. */
const HOUR = ['--block-time', '1h'];

describe('txpool namespace', () => {
  let daemon: TestDaemon;
  const sender = DEV_ADDRESSES[2].toLowerCase();
  const recipient = DEV_ADDRESSES[3].toLowerCase();
  let pendingHash: string;
  let pendingRaw: string;

  beforeAll(async () => {
    daemon = await startTestDaemon(HOUR);
    const wallet = devWallet(2);
    pendingRaw = await signDynamicFeeTx(wallet, { nonce: 0, to: recipient, value: 7n });
    pendingHash = await daemon.rpc.call<string>('eth_sendRawTransaction', [pendingRaw]);
    await daemon.rpc.call('eth_sendRawTransaction', [
      await signDynamicFeeTx(wallet, { nonce: 2, to: recipient, value: 9n }),
    ]);
  });
  afterAll(() => daemon?.stop());

  it('counts executable transactions as pending and nonce gaps as queued', async () => {
    expect(await daemon.rpc.call('txpool_status')).toEqual({ pending: '0x1', queued: '0x1' });
    expect(await daemon.rpc.call('eth_getTransactionCount', [sender, 'pending'])).toBe('0x1');
    expect(await daemon.rpc.call('eth_getTransactionCount', [sender, 'latest'])).toBe('0x0');
  });

  it('lists the transactions by sender and nonce in txpool_content', async () => {
    const content =
      await daemon.rpc.call<
        Record<string, Record<string, Record<string, Record<string, unknown>>>>
      >('txpool_content');
    const [pendingSender] = Object.keys(content.pending);
    expect(pendingSender.toLowerCase()).toBe(sender);
    expect(content.pending[pendingSender]['0']).toMatchObject({
      hash: pendingHash,
      value: '0x7',
      blockHash: null,
    });
    expect(content.queued[pendingSender]['2']).toMatchObject({ nonce: '0x2', value: '0x9' });
  });

  it("lists one sender's transactions by nonce in txpool_contentFrom, in any case", async () => {
    const content = await daemon.rpc.call<Record<string, Record<string, Record<string, unknown>>>>(
      'txpool_contentFrom',
      [sender.toUpperCase().replace('0X', '0x')],
    );
    expect(Object.keys(content.pending)).toEqual(['0']);
    expect(content.pending['0']).toMatchObject({ hash: pendingHash, value: '0x7' });
    expect(Object.keys(content.queued)).toEqual(['2']);
    expect(await daemon.rpc.call('txpool_contentFrom', [recipient])).toEqual({
      pending: {},
      queued: {},
    });
  });

  it("summarises them in geth's text form in txpool_inspect", async () => {
    const inspect =
      await daemon.rpc.call<Record<string, Record<string, Record<string, string>>>>(
        'txpool_inspect',
      );
    const [pendingSender] = Object.keys(inspect.pending);
    expect(inspect.pending[pendingSender]['0']).toMatch(
      new RegExp(`^${recipient}: 7 wei \\+ 21000 gas × \\d+ wei$`, 'i'),
    );
  });

  it("gives a pending transaction's bytes by hash in eth_getRawTransactionByHash", async () => {
    expect(await daemon.rpc.call('eth_getRawTransactionByHash', [pendingHash])).toBe(pendingRaw);
  });

  it('finds a pending transaction by hash, without block fields', async () => {
    expect(await daemon.rpc.call('eth_getTransactionByHash', [pendingHash])).toMatchObject({
      hash: pendingHash,
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
    });
  });
});
