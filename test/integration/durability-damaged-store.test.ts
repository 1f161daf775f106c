/**
 * Damaged data at start (issue #12, item 5). A chain with token transfers (and so logs) is made
 * once; each case damages a copy of its data directory. A damaged chain store is refused with
 * the file named, exit 1 and no process left, never a new genesis; a damaged log index is
 * rebuilt and answers `eth_getLogs` as before.
 */
import { cpSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ContractFactory, Interface } from 'ethers';
import { runCli } from '../helpers/cli.js';
import { loadContract } from '../helpers/contracts.js';
import { devWallet, sendAndWait, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { processesMentioning } from '../helpers/processes.js';
import { LOOPBACK_FLAGS, makeDataDir, startTestDaemon } from '../helpers/test-daemon.js';

const TRANSFERS = 3;

/** The template data directory and what its chain answered before it was stopped. */
interface Template {
  dataDir: string;
  logs: unknown[];
}

async function makeTemplate(): Promise<Template> {
  const daemon = await startTestDaemon(['--block-time', '0']);
  const wallet = devWallet(0);
  const token = loadContract('Token');
  const deploy = await new ContractFactory(token.abi, token.bytecode).getDeployTransaction(1000n);
  const deployed = await sendAndWait(
    daemon.rpc,
    await signDynamicFeeTx(wallet, { nonce: 0, data: deploy.data, gasLimit: 3_000_000n }),
  );
  const abi = new Interface(token.abi);
  for (let nonce = 1; nonce <= TRANSFERS; nonce += 1) {
    const data = abi.encodeFunctionData('transfer', [devWallet(nonce).address, BigInt(nonce)]);
    await sendAndWait(
      daemon.rpc,
      await signDynamicFeeTx(wallet, {
        nonce,
        to: deployed.contractAddress as string,
        data,
        gasLimit: 200_000n,
      }),
    );
  }
  const logs = await daemon.rpc.call<unknown[]>('eth_getLogs', [
    { fromBlock: '0x0', toBlock: 'latest' },
  ]);
  await Promise.all([daemon.rpc.close(), daemon.authedRpc.close()]);
  expect((await runCli(['daemon', 'stop', '--datadir', daemon.dataDir])).code).toBe(0);
  return { dataDir: daemon.dataDir, logs };
}

describe('damaged data at start', () => {
  let template: Template;
  const copies: string[] = [];
  const copy = () => {
    const dataDir = makeDataDir();
    copies.push(dataDir);
    cpSync(template.dataDir, dataDir, { recursive: true });
    return dataDir;
  };

  beforeAll(async () => {
    template = await makeTemplate();
    expect(template.logs.length).toBeGreaterThanOrEqual(TRANSFERS);
  }, 90_000);

  afterAll(() => {
    for (const dir of [template?.dataDir, ...copies])
      if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const damages: Array<[string, (file: string) => void, RegExp]> = [
    ['a 0-byte', (file) => truncateSync(file, 0), /is empty \(0 bytes\)/],
    [
      'a truncated',
      (file) => truncateSync(file, Math.floor(statSync(file).size / 2)),
      /is truncated \(\d+ bytes, its header needs at least \d+\)/,
    ],
    [
      'a garbage-filled',
      (file) => writeFileSync(file, randomBytes(statSync(file).size)),
      /has no valid LMDB header/,
    ],
    ['a missing', (file) => rmSync(file), /is missing/],
  ];

  it.each(damages)(
    'refuses %s chain/data.mdb with the file named, exit 1 and no process left',
    async (_name, damage, problem) => {
      const dataDir = copy();
      const file = join(dataDir, 'chain', 'data.mdb');
      damage(file);
      const result = await runCli(['daemon', 'start', '--datadir', dataDir, ...LOOPBACK_FLAGS]);
      expect(result.code).toBe(1);
      expect(result.message).toContain(`chain store ${file}`);
      expect(result.message).toMatch(problem);
      expect(result.message).toMatch(/Restore the data directory from a backup/);
      // The previous run's log lines are not shown as if they explained this start.
      expect(result.message).not.toMatch(/node started/);
      expect(processesMentioning(dataDir)).toEqual([]);
    },
    60_000,
  );

  it('rebuilds a damaged log index and answers eth_getLogs as before', async () => {
    const dataDir = copy();
    const indexFile = join(dataDir, 'log-index', 'data.mdb');
    writeFileSync(indexFile, randomBytes(statSync(indexFile).size));
    const daemon = await startTestDaemon(['--block-time', '0'], dataDir);
    try {
      const logs = await daemon.rpc.call<unknown[]>('eth_getLogs', [
        { fromBlock: '0x0', toBlock: 'latest' },
      ]);
      expect(logs).toEqual(template.logs);
      const log = readFileSync(join(dataDir, 'logs', 'daemon.log'), 'utf8');
      expect(log).toMatch(/WARN log index damaged: deleting it and rebuilding it from the chain/);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
