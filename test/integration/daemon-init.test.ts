import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { devWallet, sendAndWait } from '../helpers/dev-chain.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const CHAIN_ID = 4242n;
const MIN_GAS_PRICE = 2_000_000_000n;
const FUNDED = 100n * 10n ** 18n;

function genesisJson(): Record<string, unknown> {
  return {
    config: { chainId: Number(CHAIN_ID) },
    gasLimit: '0x1c9c380',
    minGasPrice: `0x${MIN_GAS_PRICE.toString(16)}`,
    alloc: { [DEV_ADDRESSES[0]]: { balance: `0x${FUNDED.toString(16)}` } },
  };
}

describe('daemon init --genesis', () => {
  const workDir = makeDataDir();
  const dataDir = join(workDir, 'node');
  const genesisFile = join(workDir, 'genesis.json');
  let daemon: TestDaemon;

  beforeAll(async () => {
    writeFileSync(genesisFile, JSON.stringify(genesisJson()));
    const init = await runCliJson<{ chainId: string; accounts: number }>([
      'daemon',
      'init',
      '--genesis',
      genesisFile,
      '--datadir',
      dataDir,
    ]);
    expect(init).toMatchObject({ chainId: '0x1092', accounts: 1 });
    daemon = await startTestDaemon(['--block-time', '0'], dataDir);
  });
  afterAll(async () => {
    await daemon?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('runs the custom chain: chain id, allocations, no dev accounts', async () => {
    expect(await daemon.rpc.call('eth_chainId')).toBe(`0x${CHAIN_ID.toString(16)}`);
    expect(await daemon.rpc.call('net_version')).toBe('4242');
    expect(
      BigInt(await daemon.rpc.call<string>('eth_getBalance', [DEV_ADDRESSES[0], 'latest'])),
    ).toBe(FUNDED);
    expect(await daemon.rpc.call('eth_getBalance', [DEV_ADDRESSES[1], 'latest'])).toBe('0x0');
    expect(await daemon.rpc.call('eth_accounts')).toEqual([]);
  });

  it('enforces the genesis minimum gas price', async () => {
    const wallet = devWallet(0);
    const cheap = await wallet.signTransaction({
      type: 0,
      chainId: CHAIN_ID,
      nonce: 0,
      to: DEV_ADDRESSES[1],
      value: 1n,
      gasLimit: 21_000n,
      gasPrice: MIN_GAS_PRICE - 1n,
    });
    await expect(daemon.rpc.call('eth_sendRawTransaction', [cheap])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('transaction underpriced'),
    });
    const paying = await wallet.signTransaction({
      type: 0,
      chainId: CHAIN_ID,
      nonce: 0,
      to: DEV_ADDRESSES[1],
      value: 5n,
      gasLimit: 21_000n,
      gasPrice: MIN_GAS_PRICE,
    });
    expect((await sendAndWait(daemon.rpc, paying)).status).toBe('0x1');
    expect(await daemon.rpc.call('eth_getBalance', [DEV_ADDRESSES[1], 'latest'])).toBe('0x5');
  });

  it('refuses to initialise a data directory that holds a chain', async () => {
    const again = await runCli(['daemon', 'init', '--genesis', genesisFile, '--datadir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.message).toContain('already holds a chain');
  });

  it('refuses a malformed genesis as a usage error naming the field', async () => {
    const broken = join(workDir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...genesisJson(), gasLimit: 'lots' }));
    const result = await runCli([
      'daemon',
      'init',
      '--genesis',
      broken,
      '--datadir',
      join(workDir, 'other'),
    ]);
    expect(result.code).toBe(2);
    expect(result.message).toContain('gasLimit');
  });
});
