/**
 * Disk full under a running daemon (issue #12, item 4): the data directory lives on a small
 * tmpfs that a filler file fills up. Block production stops with the reason in `health` and
 * `daemon status`, reads keep being answered, production resumes by itself once the filler is
 * deleted, and a restart finds every block that was committed.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { HttpRpcClient } from '../../src/client/http-rpc-client.js';
import { runCli, runCliJsonWithCode } from '../helpers/cli.js';
import { devWallet, signDynamicFeeTx, waitForReceipt } from '../helpers/dev-chain.js';
import { isAlive, waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { daemonLogText } from '../helpers/daemon-log.js';

interface BlockProduction {
  producing: boolean;
  reason?: string;
  failed_attempts?: number;
}

/** Big enough for the daemon's files and a few hundred blocks, small enough to fill at once. */
const TMPFS_SIZE = '24m';

/** Mounts a tmpfs; undefined (with the reason) where the environment does not allow it. */
function mountTmpfs(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

/** Writes zeros to `path` until the file system has no byte left. */
function fillUp(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (const chunk of [2 ** 20, 4096, 1]) {
      const zeros = Buffer.alloc(chunk);
      for (;;) {
        try {
          if (writeSync(fd, zeros) < chunk) break;
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe('disk full', () => {
  const mountPoint = mkdtempSync(join(tmpdir(), 'node-cli-tmpfs-'));
  const unavailable = mountTmpfs(mountPoint);
  const dataDir = join(mountPoint, 'datadir');
  const filler = join(mountPoint, 'filler');
  let daemon: TestDaemon | undefined;

  afterAll(async () => {
    if (daemon !== undefined && isAlive(daemon.pid)) await daemon.stop();
    if (unavailable === undefined) execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('halts block production, serves reads, resumes when space returns and loses no block', async () => {
    if (unavailable !== undefined) {
      console.log(`disk-full test not run: cannot mount a tmpfs here (${unavailable})`);
      return;
    }
    daemon = await startTestDaemon(['--block-time', '100ms'], dataDir);
    const { rpc } = daemon;
    const healthUrl = daemon.endpoints
      .consensusWs!.replace(/^ws:/, 'http:')
      .replace(/\/websocket$/, '/health');
    const production = async () => {
      const body = (await (await fetch(healthUrl)).json()) as {
        result: { block_production: BlockProduction };
      };
      return body.result.block_production;
    };
    const head = async () => Number(BigInt(await rpc.call<string>('eth_blockNumber')));
    await waitFor(async () => (await head()) >= 3, 20_000, 'three blocks');
    expect(await production()).toEqual({ producing: true });

    fillUp(filler);
    let halted: BlockProduction = { producing: true };
    await waitFor(
      async () => !(halted = await production()).producing,
      20_000,
      'production to stop',
    );
    expect(halted.reason).toMatch(
      /failed to write block \d+ to the chain store: .*(no space left|input\/output error)/i,
    );
    const { code, value: status } = await runCliJsonWithCode<{
      pid: number;
      blockProduction: BlockProduction;
    }>(['daemon', 'status', '--datadir', dataDir]);
    // Running but unhealthy.
    expect(code).toBe(1);
    expect(status.pid).toBe(daemon.pid);
    expect(status.blockProduction).toMatchObject({ producing: false, reason: halted.reason });

    // Reads are answered while halted, and the head stays put across a failed retry.
    const haltedHead = await head();
    const block = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [
      `0x${haltedHead.toString(16)}`,
      false,
    ]);
    expect(block.hash).toMatch(/^0x[0-9a-f]{64}$/);
    await waitFor(
      async () => ((await production()).failed_attempts ?? 0) > (halted.failed_attempts ?? 0),
      20_000,
      'a retry',
    );
    expect(await head()).toBe(haltedHead);
    // An accepted transaction must be on disk first (the pool journal), so while the disk is
    // full a send is refused with a clear error instead of being acknowledged and lost.
    const signedTransfer = await signDynamicFeeTx(devWallet(3), {
      nonce: 0,
      to: devWallet(4).address,
      value: 1n,
    });
    await expect(rpc.call('eth_sendRawTransaction', [signedTransfer])).rejects.toMatchObject({
      code: -32000,
      message: 'failed to write the transaction pool journal',
    });

    rmSync(filler);
    await waitFor(async () => (await production()).producing, 30_000, 'production to resume');
    await waitFor(async () => (await head()) > haltedHead, 10_000, 'a block after the halt');
    // The refused send took no nonce: the same transaction goes in once there is room.
    const transfer = await rpc.call<string>('eth_sendRawTransaction', [signedTransfer]);
    expect((await waitForReceipt(rpc, transfer, 30_000)).status).toBe('0x1');
    expect(isAlive(daemon.pid)).toBe(true);
    const log = daemonLogText(dataDir);
    expect(log).toMatch(/INFO block production resumed .*reason=/);

    const lastHead = await head();
    const hashes: string[] = [];
    for (let number = 0; number <= lastHead; number += 1) {
      const seen = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [
        `0x${number.toString(16)}`,
        false,
      ]);
      hashes.push(seen.hash);
    }
    await rpc.close();
    await daemon.authedRpc.close();
    expect((await runCli(['daemon', 'stop', '--datadir', dataDir])).code).toBe(0);
    const check = await runCli(['daemon', 'check', '--full', '--datadir', dataDir]);
    expect(check.stdout).toContain('no problems found');
    expect(check.code).toBe(0);

    daemon = await startTestDaemon(['--block-time', '1h'], dataDir);
    const restarted = new HttpRpcClient(daemon.endpoints.http);
    try {
      for (const [number, hash] of hashes.entries()) {
        const seen = await restarted.call<{ hash: string } | null>('eth_getBlockByNumber', [
          `0x${number.toString(16)}`,
          false,
        ]);
        expect(seen?.hash).toBe(hash);
      }
    } finally {
      await restarted.close();
    }
  }, 120_000);
});
