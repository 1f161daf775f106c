import { afterEach, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { bytesToHex, concatBytes, type Address } from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import { logCriteria } from '../../src/daemon/events/log-filter.js';
import { LogIndex } from '../../src/daemon/events/log-index.js';
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
});
