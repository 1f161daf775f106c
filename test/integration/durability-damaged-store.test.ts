/**
 * Damaged data (issue #12, item 5). A chain with token transfers (and so logs) is made once;
 * each case damages a copy of its data directory. At start a damaged chain store or storage
 * index (the index also when damaged inside, its header whole) is refused with the file named,
 * exit 1 and no process left, never a new genesis; a damaged log index is rebuilt and answers
 * `eth_getLogs` as before, also when the damage is a page pointer inside its file, its header
 * whole; a damaged transaction pool journal is set aside and the node starts with an empty pool.
 * `daemon check` passes on the healthy store and finds corruption planted in a block body, a
 * receipt and the state trie. A running node answers a read of a damaged block record or
 * receipts with an error naming the block, and a read LMDB refuses with an error saying the store
 * is damaged, not an internal error, and serves the rest of the chain.
 */
import { cpSync, existsSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RLP } from '@ethereumjs/rlp';
import { ContractFactory, Interface } from 'ethers';
import { open, type Database } from 'lmdb';
import { runCli } from '../helpers/cli.js';
import { loadContract } from '../helpers/contracts.js';
import { pointTreePastTheFile } from '../helpers/lmdb-damage.js';
import { devWallet, sendAndWait, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { processesMentioning, waitFor } from '../helpers/processes.js';
import {
  LOOPBACK_FLAGS,
  makeDataDir,
  startTestDaemon,
  type TestDaemon,
} from '../helpers/test-daemon.js';
import { daemonLogText } from '../helpers/daemon-log.js';
import { rpcError } from '../helpers/rpc-errors.js';

const TRANSFERS = 3;

/** The template data directory and what its chain answered before it was stopped. */
interface Template {
  dataDir: string;
  head: number;
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
  const head = Number(BigInt(await daemon.rpc.call<string>('eth_blockNumber')));
  // Read-only beside the running daemon: LMDB readers take a snapshot and never block it.
  const live = await runCli(['daemon', 'check', '--datadir', daemon.dataDir]);
  expect(live.stdout).toContain('no problems found');
  expect(live.code).toBe(0);
  await Promise.all([daemon.rpc.close(), daemon.authedRpc.close()]);
  expect((await runCli(['daemon', 'stop', '--datadir', daemon.dataDir])).code).toBe(0);
  return { dataDir: daemon.dataDir, head, logs };
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

  const halve = (file: string) => truncateSync(file, Math.floor(statSync(file).size / 2));
  /** The damage, the store (as its refusal names it), its directory, the problem named. */
  const refusals: Array<[string, string, string, (file: string) => void, RegExp]> = [
    ['a 0-byte', 'chain store', 'chain', (file) => truncateSync(file, 0), /is empty \(0 bytes\)/],
    [
      'a truncated',
      'chain store',
      'chain',
      halve,
      /is truncated \(\d+ bytes, its header needs at least \d+\)/,
    ],
    [
      'a garbage-filled',
      'chain store',
      'chain',
      (file) => writeFileSync(file, randomBytes(statSync(file).size)),
      /has no valid LMDB header/,
    ],
    ['a missing', 'chain store', 'chain', (file) => rmSync(file), /is missing/],
    [
      'an inside-damaged (header whole)',
      'chain store',
      'chain',
      (file) => pointTreePastTheFile(file, 'blocks'),
      /cannot be read \(MDB_/,
    ],
    ['a truncated', 'storage index', 'storage-index', halve, /is truncated/],
    [
      'an inside-damaged (header whole)',
      'storage index',
      'storage-index',
      (file) => pointTreePastTheFile(file, 'chunks'),
      /cannot be read \(MDB_/,
    ],
  ];

  it.each(refusals)(
    'refuses %s %s (%s/data.mdb) with the file named, exit 1 and no process left',
    async (_name, store, dir, damage, problem) => {
      const dataDir = copy();
      const file = join(dataDir, dir, 'data.mdb');
      damage(file);
      const result = await runCli(['daemon', 'start', '--datadir', dataDir, ...LOOPBACK_FLAGS]);
      expect(result.code).toBe(1);
      expect(result.message).toContain(`${store} ${file} `);
      expect(result.message).toMatch(problem);
      expect(result.message).toMatch(/Restore the data directory from a backup/);
      // The previous run's log lines are not shown as if they explained this start.
      expect(result.message).not.toMatch(/node started/);
      expect(processesMentioning(dataDir)).toEqual([]);
    },
    60_000,
  );

  it('sets a truncated transaction pool journal aside and starts with an empty pool', async () => {
    const dataDir = copy();
    const file = join(dataDir, 'txpool', 'data.mdb');
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const daemon = await startTestDaemon(['--block-time', '0'], dataDir);
    try {
      expect(await daemon.rpc.call('eth_blockNumber')).toBe(`0x${template.head.toString(16)}`);
      expect(existsSync(`${file}.damaged`)).toBe(true);
      expect(daemonLogText(dataDir)).toMatch(
        /WARN transaction pool journal damaged: set aside, the pool starts empty .*is truncated/,
      );
      // The fresh journal takes the next transaction: admission waits for its write.
      const sender = devWallet(1);
      const nonce = await daemon.rpc.call<string>('eth_getTransactionCount', [
        sender.address,
        'pending',
      ]);
      const raw = await signDynamicFeeTx(sender, {
        nonce: Number(nonce),
        to: devWallet(2).address,
        value: 1n,
      });
      expect((await sendAndWait(daemon.rpc, raw)).status).toBe('0x1');
    } finally {
      await daemon.stop();
    }
  }, 60_000);

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
      const log = daemonLogText(dataDir);
      expect(log).toMatch(/WARN log index damaged: deleting it and rebuilding it from the chain/);
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it('rebuilds a log index damaged inside its file, its header whole, and answers eth_getLogs as before', async () => {
    const dataDir = copy();
    pointTreePastTheFile(join(dataDir, 'log-index', 'data.mdb'), 'entries');
    const daemon = await startTestDaemon(['--block-time', '0'], dataDir);
    try {
      const everything = { fromBlock: '0x0', toBlock: 'latest' };
      expect(await daemon.rpc.call('eth_getLogs', [everything])).toEqual(template.logs);
      expect(daemonLogText(dataDir)).toMatch(
        /WARN log index damaged: deleting it and rebuilding it from the chain .*(?:page|MDB_)/,
      );
      // Read-only beside the daemon: the rebuilt index covers the chain and matches its logs.
      let report: CheckReport | undefined;
      await waitFor(
        async () => {
          report = (await check(dataDir)).report;
          return report.logIndexHeight === template.head;
        },
        30_000,
        'the rebuilt index to reach the head',
      );
      expect(report?.problems).toEqual([]);
    } finally {
      await daemon.stop();
    }
  }, 90_000);

  interface CheckReport {
    head: number;
    blocksChecked: number;
    stateRootsChecked: number[];
    trieNodesChecked: number;
    logIndexHeight: number;
    problems: Array<{ block?: number; problem: string }>;
  }

  /** Runs `daemon check --json`; its exit code and report. */
  const check = async (dataDir: string, full = false) => {
    const result = await runCli([
      'daemon',
      'check',
      '--datadir',
      dataDir,
      '--json',
      ...(full ? ['--full'] : []),
    ]);
    return { code: result.code, report: JSON.parse(result.stdout) as CheckReport };
  };

  /** Edits a copy's chain store the way a bad disk or a stray write would. */
  async function plant(edit: (dbs: ChainDbs) => void): Promise<string> {
    const dataDir = copy();
    const root = open({ path: join(dataDir, 'chain'), maxDbs: 8, compression: false });
    const dbs: ChainDbs = {
      blocks: root.openDB<Uint8Array, number>('blocks', { encoding: 'binary' }),
      receipts: root.openDB<Uint8Array, number>('receipts', { encoding: 'binary' }),
      trieNodes: root.openDB<Uint8Array, Buffer>('trieNodes', {
        keyEncoding: 'binary',
        encoding: 'binary',
      }),
    };
    await root.transaction(() => edit(dbs));
    await root.close();
    return dataDir;
  }

  /** Block 2 holds the first token transfer (block 1 the deployment). */
  const TRANSFER_BLOCK = 2;
  const TRANSFER_SELECTOR = Buffer.from('a9059cbb', 'hex');

  it('daemon check passes on a healthy store, with --full too', async () => {
    const sampled = await check(template.dataDir);
    expect(sampled.code).toBe(0);
    expect(sampled.report.problems).toEqual([]);
    expect(sampled.report.blocksChecked).toBe(sampled.report.head + 1);
    expect(sampled.report.stateRootsChecked).toContain(sampled.report.head);
    expect(sampled.report.logIndexHeight).toBe(sampled.report.head);
    const full = await check(template.dataDir, true);
    expect(full.code).toBe(0);
    expect(full.report.stateRootsChecked).toHaveLength(full.report.head + 1);
    expect(full.report.trieNodesChecked).toBeGreaterThanOrEqual(sampled.report.trieNodesChecked);
  }, 60_000);

  it('daemon check finds a changed byte in a stored block body', async () => {
    const dataDir = await plant(({ blocks }) => {
      const record = Buffer.from(blocks.getBinary(TRANSFER_BLOCK)!);
      const at = record.indexOf(TRANSFER_SELECTOR) + TRANSFER_SELECTOR.length + 31;
      record[at] ^= 0x01;
      blocks.putSync(TRANSFER_BLOCK, record);
    });
    const { code, report } = await check(dataDir);
    expect(code).toBe(1);
    expect(report.problems).toContainEqual({
      block: TRANSFER_BLOCK,
      problem: 'transactions root recomputed from the body differs from the header',
    });
  }, 60_000);

  it('daemon check finds a changed byte in a stored receipt', async () => {
    const dataDir = await plant(({ receipts }) => {
      const record = Buffer.from(receipts.getBinary(TRANSFER_BLOCK)!);
      record[record.length - 1] ^= 0x01;
      receipts.putSync(TRANSFER_BLOCK, record);
    });
    const { code, report } = await check(dataDir);
    expect(code).toBe(1);
    expect(report.problems).toContainEqual({
      block: TRANSFER_BLOCK,
      problem: 'receipts root recomputed from the stored receipts differs from the header',
    });
  }, 60_000);

  it('daemon check finds a deleted trie node under the head state root', async () => {
    let deleted = '';
    const dataDir = await plant(({ blocks, trieNodes }) => {
      const record = blocks.getBinary(template.head)!;
      // [[header, txs, ...], senders]; the state root is header field 3.
      const header = (RLP.decode(record) as unknown as Uint8Array[][][])[0][0];
      const rootNode = trieNodes.getBinary(Buffer.from(header[3]))!;
      const child = (RLP.decode(rootNode) as unknown as Uint8Array[]).find((c) => c.length === 32)!;
      deleted = `0x${Buffer.from(child).toString('hex')}`;
      trieNodes.removeSync(Buffer.from(child));
    });
    const { code, report } = await check(dataDir);
    expect(code).toBe(1);
    // Reported once, at the first sampled block whose state reaches it.
    expect(report.problems.map((p) => p.problem)).toContain(`trie node ${deleted} is missing`);
  }, 60_000);

  /** The error `eth_getTransactionReceipt` answers for the first transaction of block `number`. */
  async function firstReceiptRefusal(daemon: TestDaemon, number: number) {
    const block = await daemon.rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', [
      `0x${number.toString(16)}`,
      false,
    ]);
    return rpcError(daemon.rpc.call('eth_getTransactionReceipt', [block.transactions[0]]));
  }

  it('answers a read that LMDB refuses inside the chain store with what is wrong, and keeps serving', async () => {
    const dataDir = copy();
    // The transaction index is not read at start: its damage shows at the first lookup.
    pointTreePastTheFile(join(dataDir, 'chain', 'data.mdb'), 'txLocations');
    const daemon = await startTestDaemon(['--block-time', '0'], dataDir);
    try {
      const refused = await firstReceiptRefusal(daemon, TRANSFER_BLOCK);
      expect(refused.code).toBe(-32000);
      expect(refused.message).toMatch(
        /^a store of the data directory cannot be read \(MDB_\w+.*\): it is damaged\. node-cli daemon check/,
      );
      expect(await daemon.rpc.call('eth_blockNumber')).toBe(`0x${template.head.toString(16)}`);
      expect(daemonLogText(dataDir)).toMatch(/ERROR JSON-RPC handler failed .*MDB_/);
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it('names a damaged block record or receipts in the answer, logs it, and keeps serving the rest', async () => {
    const receiptsBlock = TRANSFER_BLOCK + 1;
    // Bytes that are no RLP list at all, as a stray write would leave them.
    const garbage = Buffer.from('ff'.repeat(40), 'hex');
    const dataDir = await plant(({ blocks, receipts }) => {
      blocks.putSync(TRANSFER_BLOCK, garbage);
      receipts.putSync(receiptsBlock, garbage);
    });
    const daemon = await startTestDaemon(['--block-time', '0'], dataDir);
    try {
      const damaged = (part: string, block: number) =>
        new RegExp(
          `the chain store holds ${part} of block ${block}, which cannot be read\\. ` +
            'node-cli daemon check lists what is damaged',
        );
      const blockError = await rpcError(
        daemon.rpc.call('eth_getBlockByNumber', [`0x${TRANSFER_BLOCK.toString(16)}`, false]),
      );
      expect(blockError.code).toBe(-32000);
      expect(blockError.message).toMatch(damaged('a damaged record', TRANSFER_BLOCK));
      const withTxs = await rpcError(
        daemon.rpc.call('eth_getBlockByNumber', [`0x${TRANSFER_BLOCK.toString(16)}`, true]),
      );
      expect(withTxs.message).toMatch(damaged('a damaged record', TRANSFER_BLOCK));

      // The block after it is whole; only its receipts are damaged.
      const receiptError = await firstReceiptRefusal(daemon, receiptsBlock);
      expect(receiptError.code).toBe(-32000);
      expect(receiptError.message).toMatch(damaged('damaged receipts', receiptsBlock));
      const blockReceipts = await rpcError(
        daemon.rpc.call('eth_getBlockReceipts', [`0x${receiptsBlock.toString(16)}`]),
      );
      expect(blockReceipts.message).toMatch(damaged('damaged receipts', receiptsBlock));

      // Blocks on either side answer as before, and so does the head.
      const head = `0x${template.head.toString(16)}`;
      expect(await daemon.rpc.call('eth_blockNumber')).toBe(head);
      const first = await daemon.rpc.call<{ number: string }>('eth_getBlockByNumber', [
        '0x1',
        true,
      ]);
      expect(first.number).toBe('0x1');
      expect(daemonLogText(dataDir)).toMatch(
        new RegExp(`WARN read of a damaged store refused .*record of block ${TRANSFER_BLOCK}`),
      );
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});

interface ChainDbs {
  blocks: Database<Uint8Array, number>;
  receipts: Database<Uint8Array, number>;
  trieNodes: Database<Uint8Array, Buffer>;
}
