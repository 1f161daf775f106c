/**
 * With block time 0 a send is answered once its block is committed, so a client that reads the
 * receipt or the block number after the answer finds the transaction mined (ethers'
 * `provider.waitForTransaction` waited for a block that never came otherwise). A transaction
 * behind a nonce gap, or sent while mining is off, is answered without a block.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JsonRpcProvider } from 'ethers';
import { devWallet, signDynamicFeeTx, stopMining, type RawReceipt } from '../helpers/dev-chain.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const RECIPIENT = '0x00000000000000000000000000000000000000aa';
const DEV_ADDRESS = devWallet(0).address;

describe('sends under automine', () => {
  let daemon: TestDaemon;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0', '--json-rpc.ethereum-compat']);
    provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      pollingInterval: 50,
      cacheTimeout: -1,
      staticNetwork: true,
    });
  }, 60_000);
  afterAll(async () => {
    provider?.destroy();
    await daemon?.stop();
  });

  const receipt = (hash: string) =>
    daemon.rpc.call<RawReceipt | null>('eth_getTransactionReceipt', [hash]);
  const nextNonce = async () =>
    Number(await daemon.rpc.call<string>('eth_getTransactionCount', [DEV_ADDRESS, 'pending']));

  it('answers eth_sendRawTransaction once the transaction is in a committed block', async () => {
    for (let round = 0; round < 10; round++) {
      const raw = await signDynamicFeeTx(devWallet(0), {
        nonce: await nextNonce(),
        to: RECIPIENT,
        value: 1n,
      });
      const hash = await daemon.rpc.call<string>('eth_sendRawTransaction', [raw]);
      const mined = await receipt(hash);
      expect(mined).not.toBeNull();
      const head = BigInt(await daemon.rpc.call<string>('eth_blockNumber'));
      expect(head).toBeGreaterThanOrEqual(BigInt(mined!.blockNumber));
    }
  });

  it('answers eth_sendTransaction of an unlocked account once it is mined', async () => {
    const hash = await daemon.rpc.call<string>('eth_sendTransaction', [
      { from: DEV_ADDRESS, to: RECIPIENT, value: '0x1' },
    ]);
    expect((await receipt(hash))?.status).toBe('0x1');
  });

  it("lets ethers' waitForTransaction find the block after reading the head", async () => {
    const wallet = devWallet(1).connect(provider);
    for (let round = 0; round < 5; round++) {
      const sent = await wallet.sendTransaction({ to: RECIPIENT, value: 1n });
      const mined = await provider.waitForTransaction(sent.hash, 1, 10_000);
      expect(mined?.status).toBe(1);
    }
  });

  it('mines a batch of sends together and answers each of them mined', async () => {
    const first = await nextNonce();
    const raws = await Promise.all(
      [0, 1, 2, 3].map((offset) =>
        signDynamicFeeTx(devWallet(0), { nonce: first + offset, to: RECIPIENT, value: 1n }),
      ),
    );
    const hashes = await Promise.all(
      raws.map((raw) => daemon.rpc.call<string>('eth_sendRawTransaction', [raw])),
    );
    const receipts = await Promise.all(hashes.map(receipt));
    expect(receipts.every((r) => r?.status === '0x1')).toBe(true);
  });

  it('answers a transaction behind a nonce gap without mining it', async () => {
    const raw = await signDynamicFeeTx(devWallet(2), { nonce: 5, to: RECIPIENT, value: 1n });
    const hash = await daemon.rpc.call<string>('eth_sendRawTransaction', [raw]);
    expect(await receipt(hash)).toBeNull();
    const status = await daemon.rpc.call<{ queued: string }>('txpool_status');
    expect(BigInt(status.queued)).toBeGreaterThanOrEqual(1n);
  });

  it('answers at once while mining is off, and mines when it resumes', async () => {
    await stopMining(daemon);
    try {
      const raw = await signDynamicFeeTx(devWallet(0), {
        nonce: await nextNonce(),
        to: RECIPIENT,
        value: 1n,
      });
      const hash = await daemon.rpc.call<string>('eth_sendRawTransaction', [raw]);
      expect(await receipt(hash)).toBeNull();
      await daemon.authedRpc.call('evm_setAutomine', [true]);
      await daemon.authedRpc.call('evm_mine');
      expect((await receipt(hash))?.status).toBe('0x1');
    } finally {
      await daemon.authedRpc.call('evm_setAutomine', [true]);
    }
  });
});
