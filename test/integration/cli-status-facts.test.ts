/**
 * The chain facts of `daemon status` (chain id, head height, hash and age, pool size), in human
 * output and in `--json`, against a real daemon whose pool holds one queued transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { runCli, runCliJsonWithCode } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

interface StatusJson {
  running: boolean;
  chain?: {
    chainId: string;
    head: { number: string; hash: string; time: string; ageSeconds: number };
    pool?: { pending: string; queued: string };
  };
}

describe('daemon status chain facts', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon();
    const sender = DEV_ADDRESSES[6];
    const next = Number(
      await daemon.rpc.call<string>('eth_getTransactionCount', [sender, 'pending']),
    );
    // One past the next nonce: the pool queues it, so the count is known without timing.
    const queued = await runCli([
      'tx',
      'send',
      '--from',
      sender,
      '--to',
      DEV_ADDRESSES[7],
      '--value',
      '1',
      '--nonce',
      String(next + 1),
      '--async',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(queued.code).toBe(0);
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  it('shows chain id, head and pool, with the same facts in --json', async () => {
    const { code, value } = await runCliJsonWithCode<StatusJson>([
      'daemon',
      'status',
      '--datadir',
      daemon.dataDir,
    ]);
    expect(code).toBe(0);
    expect(value.chain).toMatchObject({
      chainId: '0x2328',
      pool: { pending: '0x0', queued: '0x1' },
    });
    const head = value.chain?.head;
    expect(head?.number).toMatch(/^0x[0-9a-f]+$/);
    expect(head?.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(head?.ageSeconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(head?.time ?? '')).not.toBeNaN();

    const human = await runCli(['daemon', 'status', '--datadir', daemon.dataDir]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ {2}chain id {5}9000$/m);
    expect(human.stdout).toMatch(
      /^ {2}head {9}(0 \(genesis|[1-9]\d* \(\d+ s ago), 0x[0-9a-f]{64}\)$/m,
    );
    expect(human.stdout).toMatch(/^ {2}pool {9}0 pending, 1 queued$/m);
  });

  it('names the genesis block as such rather than giving its age', async () => {
    // Without transactions and with block time 0 the head stays at the genesis block.
    const idle = await startTestDaemon(['--block-time', '0']);
    try {
      const human = await runCli(['daemon', 'status', '--datadir', idle.dataDir]);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^ {2}head {9}0 \(genesis, 0x[0-9a-f]{64}\)$/m);
    } finally {
      await idle.stop();
    }
  });
});
