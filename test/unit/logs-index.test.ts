import { afterEach, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { bytesToHex, concatBytes, type Address } from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import { logCriteria } from '../../src/daemon/events/log-filter.js';
import { LogIndex } from '../../src/daemon/events/log-index.js';
import { pointTreePastTheFile } from '../helpers/lmdb-damage.js';
import { tempDataDir } from './chain-fixtures.js';
import { openLogChain, word, type LogChain } from './logs-fixtures.js';

const TOPIC = bytesToHex(word(0x7007));

describe('log index', () => {
  const cleanups: Array<() => Promise<void> | void> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function chainWithLogs(): Promise<{ logChain: LogChain; emitter: Address }> {
    const logChain = await openLogChain();
    cleanups.push(() => logChain.close());
    const emitters = await logChain.deployEmitters();
    return { logChain, emitter: emitters[1] };
  }

  const emitOne = (logChain: LogChain, emitter: Address, publish = true) =>
    logChain.commit(
      [logChain.tx({ to: emitter, data: concatBytes(word(BigInt(TOPIC)), word(1)) })],
      publish,
    );

  it('indexes blocks the bus skipped when a later block arrives', async () => {
    const { logChain, emitter } = await chainWithLogs();
    const unheard = await emitOne(logChain, emitter, false);
    const heard = await emitOne(logChain, emitter);
    await logChain.index.whenIdle();
    expect(logChain.index.indexedHeight).toBe(heard.block.number);
    const criteria = logCriteria({ address: emitter.toString(), topics: [TOPIC] });
    expect(logChain.index.candidateBlocks(criteria, 0n, heard.block.number)).toEqual([
      Number(unheard.block.number),
      Number(heard.block.number),
    ]);
    expect(
      logChain.index.candidateBlocks(criteria, heard.block.number, heard.block.number),
    ).toEqual([Number(heard.block.number)]);
  });

  it('starts over when opened against another history, even from the same genesis', async () => {
    const { logChain, emitter } = await chainWithLogs();
    await emitOne(logChain, emitter);
    await logChain.index.whenIdle();
    const indexDir = join(logChain.dataDir, 'log-index');
    await logChain.index.close();

    const other = tempDataDir();
    const otherChain = await Chain.open({
      dataDir: other.dir,
      genesis: devGenesis(),
    });
    cleanups.push(() => {
      other.cleanup();
    });
    cleanups.push(() => otherChain.close());
    // Same genesis and taller than the first chain: only the recorded block hash tells them apart.
    for (let timestamp = 1n; timestamp <= 3n; timestamp++) {
      await otherChain.buildAndCommitBlock([], timestamp);
    }
    const reopened = await LogIndex.open({ dir: indexDir, chain: otherChain, bus: new EventBus() });
    logChain.index = reopened;
    expect(reopened.indexedHeight).toBe(3n);
    expect(
      reopened.candidateBlocks(logCriteria({ address: emitter.toString() }), 0n, 100n),
    ).toEqual([]);
    expect(reopened.candidateBlocks(logCriteria({}), 0n, 100n)).toEqual([]);
  });

  /**
   * Closes the index of `logChain` and opens it again with what it reports collected, after
   * `damage` has been done to its data file.
   */
  async function reopenIndex(logChain: LogChain, damage: (dataFile: string) => void = () => {}) {
    const dir = join(logChain.dataDir, 'log-index');
    const dataFile = join(dir, 'data.mdb');
    await logChain.index.close();
    damage(dataFile);
    const rebuilds: string[] = [];
    const errors: string[] = [];
    logChain.index = await LogIndex.open({
      dir,
      chain: logChain.chain,
      bus: logChain.bus,
      onRebuild: (problem) => rebuilds.push(problem),
      onError: (error) => errors.push(String(error)),
    });
    return { index: logChain.index, dataFile, rebuilds, errors };
  }

  it('rebuilds itself once when damage inside its file shows while running, then goes without', async () => {
    const { logChain, emitter } = await chainWithLogs();
    const logged = await emitOne(logChain, emitter);
    await logChain.index.whenIdle();
    const { index, dataFile, rebuilds, errors } = await reopenIndex(logChain);
    const criteria = logCriteria({ address: emitter.toString() });
    // Damage in the open file, met by a query after a commit (so the query reads in a new
    // snapshot): the query finds nothing in the index, which drops to -1, so its caller reads
    // receipts; the index is deleted and rebuilt from the chain.
    const damageNow = async () => {
      await logChain.commit([]);
      await index.whenIdle();
      pointTreePastTheFile(dataFile, 'entries');
    };
    await damageNow();
    const head = logChain.chain.head().number;
    expect(index.candidateBlocks(criteria, 0n, head)).toEqual([]);
    expect(index.indexedHeight).toBe(-1n);
    expect(rebuilds).toHaveLength(1);
    await index.whenIdle();
    expect(index.indexedHeight).toBe(head);
    expect(index.candidateBlocks(criteria, 0n, head)).toEqual([Number(logged.block.number)]);
    expect(errors).toEqual([]);

    // Damage again: no second rebuild; the index is dropped until the next start, and later
    // blocks, logs and all, are not written to it.
    await damageNow();
    expect(index.candidateBlocks(criteria, 0n, head)).toEqual([]);
    expect(index.indexedHeight).toBe(-1n);
    expect(rebuilds).toHaveLength(1);
    expect(errors.join('\n')).toMatch(/log index damaged again after its rebuild/);
    await emitOne(logChain, emitter);
    await index.whenIdle();
    expect(index.indexedHeight).toBe(-1n);
    expect(index.candidateBlocks(criteria, 0n, logChain.chain.head().number)).toEqual([]);
  });

  it('rebuilds itself at open when a page pointer inside its file is damaged, before writing', async () => {
    const { logChain, emitter } = await chainWithLogs();
    const heard = await emitOne(logChain, emitter);
    await logChain.index.whenIdle();
    // Not published: the index is a block behind when it opens again, so it writes at once (a
    // write lmdb-js may never answer when it meets the damage: the open must find it first).
    const unheard = await emitOne(logChain, emitter, false);
    const { index, rebuilds, errors } = await reopenIndex(logChain, (dataFile) =>
      pointTreePastTheFile(dataFile, 'entries'),
    );
    expect(rebuilds).toHaveLength(1);
    expect(errors).toEqual([]);
    expect(index.indexedHeight).toBe(unheard.block.number);
    const criteria = logCriteria({ address: emitter.toString() });
    expect(index.candidateBlocks(criteria, 0n, unheard.block.number)).toEqual([
      Number(heard.block.number),
      Number(unheard.block.number),
    ]);
  });
});
