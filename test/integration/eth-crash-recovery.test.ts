/**
 * kill -9 in the middle of a stream of transactions, then a restart on the same data directory:
 * every transaction whose receipt was handed out before the kill still has it, and a block seen
 * before the kill keeps its hash and state root.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { RpcResponseError } from '../../src/client/errors.js';
import { devWallet, signDynamicFeeTx, type RawReceipt } from '../helpers/dev-chain.js';
import { isAlive, waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const FLAGS = ['--block-time', '200ms'];
const SENDERS = [devWallet(7), devWallet(8), devWallet(9)];
const TRANSFERS_PER_SENDER = 60;
const TRANSFERS_PER_BLOCK = 5;
/** Receipts to collect before the kill, so that it lands mid-stream with blocks behind it. */
const RECEIPTS_BEFORE_KILL = 30;

interface BlockSeen {
  number: string;
  hash: string;
  stateRoot: string;
}

describe('crash recovery after SIGKILL', () => {
  const dataDir = makeDataDir();
  let first: TestDaemon | undefined;
  let restarted: TestDaemon | undefined;
  afterAll(async () => {
    if (restarted !== undefined) await restarted.stop();
    else if (first !== undefined && isAlive(first.pid)) await first.stop();
    else rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every receipt handed out and the state root of a block seen before the kill', async () => {
    const recipient = devWallet(0).address;
    const stream = await Promise.all(
      SENDERS.map(async (sender) => {
        const raws: string[] = [];
        for (let nonce = 0; nonce < TRANSFERS_PER_SENDER; nonce += 1)
          raws.push(await signDynamicFeeTx(sender, { nonce, to: recipient, value: 1n }));
        return raws;
      }),
    );

    const daemon = await startTestDaemon(FLAGS, dataDir);
    first = daemon;
    const sentHashes: string[] = [];
    const receipts = new Map<string, RawReceipt>();
    let killed = false;

    const headNumber = async () => BigInt(await daemon.rpc.call<string>('eth_blockNumber'));
    /** Sends a sender's transfers a few per block, so that the stream spans many blocks. */
    const submitAll = (raws: string[]) =>
      (async () => {
        for (let start = 0; start < raws.length && !killed; start += TRANSFERS_PER_BLOCK) {
          const head = await headNumber();
          for (const raw of raws.slice(start, start + TRANSFERS_PER_BLOCK)) {
            sentHashes.push(await daemon.rpc.call<string>('eth_sendRawTransaction', [raw]));
          }
          await waitFor(async () => killed || (await headNumber()) > head, 10_000, 'a block');
        }
      })().catch((error: unknown) => {
        if (!killed) throw error;
      });
    /** Polls the receipts of the transactions sent so far until the kill. */
    const collectReceipts = () =>
      waitFor(
        async () => {
          for (const hash of sentHashes.filter((sent) => !receipts.has(sent))) {
            if (killed) break;
            const receipt = await daemon.rpc
              .call<RawReceipt | null>('eth_getTransactionReceipt', [hash])
              .catch((error: unknown) => {
                if (killed) return null;
                throw error;
              });
            if (receipt !== null && !killed) receipts.set(hash, receipt);
          }
          return killed;
        },
        60_000,
        'the kill',
      );
    const submitting = Promise.all(stream.map(submitAll));
    const collecting = collectReceipts();
    await waitFor(() => receipts.size >= RECEIPTS_BEFORE_KILL, 30_000, 'receipts before the kill');
    const seen = await daemon.rpc.call<BlockSeen>('eth_getBlockByNumber', ['latest', false]);
    const recorded = new Map(receipts);
    killed = true;
    process.kill(daemon.pid, 'SIGKILL');
    await waitFor(() => !isAlive(daemon.pid), 10_000, 'the killed daemon to exit');
    await Promise.all([submitting, collecting]);
    await Promise.all([daemon.rpc.close(), daemon.authedRpc.close()]);
    expect(sentHashes.length).toBeLessThan(SENDERS.length * TRANSFERS_PER_SENDER);

    restarted = await startTestDaemon(FLAGS, dataDir);
    const rpc = restarted.rpc;
    const head = BigInt(await rpc.call<string>('eth_blockNumber'));
    expect(head).toBeGreaterThanOrEqual(BigInt(seen.number));
    const block = await rpc.call<BlockSeen>('eth_getBlockByNumber', [seen.number, false]);
    expect({ hash: block.hash, stateRoot: block.stateRoot }).toEqual({
      hash: seen.hash,
      stateRoot: seen.stateRoot,
    });
    for (const [hash, receipt] of recorded) {
      const after = await rpc.call<RawReceipt | null>('eth_getTransactionReceipt', [hash]);
      expect(after).toEqual(receipt);
    }

    // The chain goes on: what the node had not acknowledged can be sent again and gets included.
    for (const raws of stream) {
      for (const raw of raws) {
        await rpc.call('eth_sendRawTransaction', [raw]).catch((error: unknown) => {
          if (!(error instanceof RpcResponseError)) throw error;
        });
      }
    }
    for (const sender of SENDERS) {
      await waitFor(
        async () =>
          (await rpc.call<string>('eth_getTransactionCount', [sender.address, 'latest'])) ===
          `0x${TRANSFERS_PER_SENDER.toString(16)}`,
        30_000,
        `all transfers of ${sender.address} to be included`,
      );
    }
  });
});
