/**
 * `tx send` fee, gas and nonce flags, `--async` and `--confirmations`, and replacing a pending
 * transaction with `tx speed-up` and `tx cancel`, through the built binary against a real
 * daemon. A transaction is kept pending without timing: it is sent with a nonce one past the
 * sender's next, so the pool queues it until the gap is filled.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const SENDER = DEV_ADDRESSES[3];
const RECIPIENT = DEV_ADDRESSES[4];

interface Sent {
  hash: string;
  replaced?: string;
  from?: string;
  to?: string;
  status?: string;
  blockNumber?: string;
  confirmations?: number;
}

describe('tx fees and replacement', () => {
  let daemon: TestDaemon;
  const cli = (...args: string[]) => runCli([...args, '--datadir', daemon.dataDir]);
  const cliJson = <T>(...args: string[]) => runCliJson<T>([...args, '--datadir', daemon.dataDir]);
  const nextNonce = async () =>
    Number(await daemon.rpc.call<string>('eth_getTransactionCount', [SENDER, 'pending']));

  /** A transfer from SENDER to RECIPIENT with the given nonce and further flags. */
  const transfer = (value: string, nonce: string, ...flags: string[]) =>
    cliJson<Sent>(
      'tx',
      'send',
      '--from',
      SENDER,
      '--to',
      RECIPIENT,
      '--value',
      value,
      '--nonce',
      nonce,
      ...flags,
    );

  /** Sends a transfer with a nonce one past the next (0x-hex), which waits in the pool. */
  async function queueTransfer(...flags: string[]): Promise<{ hash: string; gap: number }> {
    const gap = await nextNonce();
    const queued = await transfer(
      '0x2540be400',
      `0x${(gap + 1).toString(16)}`,
      '--async',
      ...flags,
    );
    return { hash: queued.hash, gap };
  }

  /** Fills the nonce gap with EIP-1559 fees given by flag, waiting for two blocks. */
  function fillGap(gap: number): Promise<Sent> {
    return transfer(
      '1',
      String(gap),
      '--max-fee',
      '20gwei',
      '--priority-fee',
      '2gwei',
      '--gas-limit',
      '0x5208',
      '--confirmations',
      '2',
    );
  }

  beforeAll(async () => {
    daemon = await startTestDaemon();
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  it('speed-up replaces a pending transaction, which then gets mined instead of it', async () => {
    const { hash, gap } = await queueTransfer();
    const replacement = await cliJson<Sent>('tx', 'speed-up', hash, '--async');
    expect(replacement.replaced).toBe(hash);
    expect(replacement.hash).not.toBe(hash);
    const again = await cli('tx', 'speed-up', hash);
    expect(again.code).toBe(1);
    expect(again.message).toContain(`transaction ${hash} is not known to the node`);

    const filled = await fillGap(gap);
    expect(filled).toMatchObject({ from: SENDER, to: RECIPIENT, status: '0x1' });
    expect(filled.confirmations).toBeGreaterThanOrEqual(2);
    const mined = await cliJson<Record<string, unknown>>('tx', 'receipt', replacement.hash);
    expect(mined).toMatchObject({ status: '0x1', from: SENDER, to: RECIPIENT });
    const original = await cli('tx', 'receipt', hash);
    expect(original.code).toBe(1);
    const done = await cli('tx', 'speed-up', replacement.hash);
    expect(done.code).toBe(1);
    expect(done.message).toContain('is already in block');
  });

  it('cancel replaces a pending transaction with a transfer of 0 to the sender', async () => {
    const { hash, gap } = await queueTransfer();
    const cancel = await cliJson<Sent>('tx', 'cancel', hash, '--async', '--bump', '20');
    await fillGap(gap);
    const tx = await cliJson<Record<string, unknown>>('tx', 'get', cancel.hash);
    expect(tx).toMatchObject({ from: SENDER, to: SENDER, value: '0x0', gas: '0x5208' });
    expect(tx.blockNumber).not.toBeNull();
    expect((await cli('tx', 'get', hash)).code).toBe(1);
  });

  it('refuses a fee flag of the other type than the pending transaction, exit 2', async () => {
    const legacy = await queueTransfer('--gas-price', '5gwei');
    for (const flag of ['--max-fee', '--priority-fee']) {
      const refused = await cli('tx', 'speed-up', legacy.hash, flag, '50gwei');
      expect(refused.code).toBe(2);
      expect(refused.message).toContain(
        `${flag} cannot set the fees of ${legacy.hash}: it is a legacy transaction (type 0)`,
      );
    }
    await fillGap(legacy.gap);
    const dynamic = await queueTransfer();
    const refused = await cli('tx', 'cancel', dynamic.hash, '--gas-price', '50gwei', '--json');
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.message).toContain(
      `--gas-price cannot set the fees of ${dynamic.hash}: it is an EIP-1559 transaction (type 2)`,
    );
    await fillGap(dynamic.gap);
  });

  it('refuses malformed and conflicting values as usage errors', async () => {
    const send = ['tx', 'send', '--from', SENDER, '--to', RECIPIENT];
    const badAmount = await cli(...send, '--max-fee', '1.5 parsecs');
    expect(badAmount.code).toBe(2);
    expect(badAmount.message).toContain('invalid amount "1.5 parsecs"');
    const badGas = await cli(...send, '--gas-limit', '0xzz');
    expect(badGas.code).toBe(2);
    expect(badGas.message).toContain('invalid --gas-limit "0xzz"');
    const both = await cli(...send, '--gas-price', '1gwei', '--max-fee', '2gwei');
    expect(both.code).toBe(2);
    expect(both.message).toContain('--gas-price');
    const unknown = await cli('tx', 'cancel', `0x${'ab'.repeat(32)}`);
    expect(unknown.code).toBe(1);
    expect(unknown.message).toContain('is not known to the node');
  });
});
