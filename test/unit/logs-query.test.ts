import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Address } from '@ethereumjs/util';
import { bytesToHex, concatBytes } from '@ethereumjs/util';
import { serialiseLog } from '../../src/daemon/api/eth-logs.js';
import { ChainReader } from '../../src/daemon/chain/chain-reader.js';
import type { ChainLog } from '../../src/daemon/chain/types.js';
import { InvalidInputError, LimitExceededError, NotFoundError } from '../../src/shared/errors.js';
import { LogIndex } from '../../src/daemon/events/log-index.js';
import { parseLogFilter, type LogFilterObject } from '../../src/daemon/events/log-filter.js';
import { LogQuery, type LogQueryLimits } from '../../src/daemon/events/log-query.js';
import { ServedLogs, type ServedLog } from '../../src/daemon/events/served-logs.js';
import { openLogChain, word, type LogChain } from './logs-fixtures.js';

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const TOPICS = [1, 2, 3].map((n) => bytesToHex(word(0xf00 + n)));
const UNKNOWN = '0x000000000000000000000000000000000000dead';
/** Logs compare by their whole JSON-RPC text: position, hashes and contents. */
const key = (log: ChainLog) => serialiseLog(log);
const served = (log: ServedLog) => log.json;

/** The specification of matching, written independently of the node's matcher. */
function bruteForce(all: ChainLog[], filter: LogFilterObject, from: bigint, to: bigint): string[] {
  const addresses =
    filter.address == null ? null : [filter.address].flat().map((a) => a.toLowerCase());
  const topics = filter.topics ?? [];
  return all
    .filter((log) => log.blockNumber >= from && log.blockNumber <= to)
    .filter((log) => addresses === null || addresses.includes(log.address.toString()))
    .filter((log) => {
      if (topics.length > log.topics.length) return false;
      return topics.every((wanted, position) => {
        if (wanted === null) return true;
        const options = [wanted].flat();
        if (options.length === 0 || options.includes(null)) return true;
        return options.includes(bytesToHex(log.topics[position]));
      });
    })
    .map(key);
}

describe('eth_getLogs query over the log index', () => {
  let logChain: LogChain;
  let emitters: Address[];
  let all: ChainLog[];
  /**
   * A reader without caches over the same store, so queries read every block's logs from the
   * stored records (the producer's caches hold this small chain whole).
   */
  let reader: ChainReader;
  const limits = { blockRangeCap: 10_000, logsCap: 10_000 };
  const queryWith = (bounds: LogQueryLimits) =>
    new LogQuery(reader, logChain.index, bounds, new ServedLogs(reader, serialiseLog));

  beforeAll(async () => {
    logChain = await openLogChain();
    emitters = await logChain.deployEmitters();
    const next = random(7);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
    for (let block = 0; block < 40; block++) {
      const count = block % 7 === 3 ? 0 : 1 + Math.floor(next() * 8);
      const txs = Array.from({ length: count }, () => {
        const topicCount = Math.floor(next() * 5);
        const topics = Array.from({ length: topicCount }, () => word(BigInt(pick(TOPICS))));
        return logChain.tx({
          to: emitters[topicCount],
          data: concatBytes(...topics, word(block)),
        });
      });
      // The last blocks are committed without reaching the index, to exercise the tail scan.
      const committed = await logChain.commit(txs, block < 36);
      expect(committed.receipts.every((r) => r.status === 1)).toBe(true);
    }
    reader = await ChainReader.openFollower({
      dataDir: logChain.dataDir,
      parameters: logChain.chain.parameters,
      sharedHead: logChain.chain.sharedHead.buffer,
      cacheBytes: { blocks: 0, receipts: 0 },
    });
    all = [];
    for (let n = 0n; n <= logChain.chain.head().number; n++) {
      for (const receipt of logChain.chain.getBlockReceipts(n)!) all.push(...receipt.logs);
    }
  }, 60_000);

  afterAll(async () => {
    await reader.close();
    await logChain.close();
  });

  function checkRandomFilters(seed: number): void {
    const query = queryWith(limits);
    const head = Number(logChain.chain.head().number);
    const next = random(seed);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
    const addressChoices = [...emitters.map((a) => a.toString()), UNKNOWN];
    const topicChoice = (): string | null | Array<string | null> => {
      const roll = next();
      if (roll < 0.3) return null;
      if (roll < 0.65) return pick(TOPICS);
      if (roll < 0.75) return [pick(TOPICS), null];
      return [pick(TOPICS), pick(TOPICS)];
    };
    for (let round = 0; round < 300; round++) {
      const a = Math.floor(next() * (head + 1));
      const b = Math.floor(next() * (head + 1));
      const [from, to] = a <= b ? [a, b] : [b, a];
      const filter: LogFilterObject = {
        fromBlock: `0x${from.toString(16)}`,
        toBlock: next() < 0.2 ? 'latest' : `0x${to.toString(16)}`,
      };
      const addressRoll = next();
      if (addressRoll < 0.4) filter.address = pick(addressChoices);
      else if (addressRoll < 0.6) filter.address = [pick(addressChoices), pick(addressChoices)];
      if (next() < 0.8) filter.topics = Array.from({ length: Math.floor(next() * 5) }, topicChoice);
      const end = filter.toBlock === 'latest' ? head : to;
      const expected = bruteForce(all, filter, BigInt(from), BigInt(end));
      expect({ filter, keys: query.logs(parseLogFilter(filter)).map(served) }).toEqual({
        filter,
        keys: expected,
      });
    }
  }

  it('agrees with a brute-force scan for random filters while the index lags the chain', () => {
    expect(logChain.index.indexedHeight).toBeLessThan(logChain.chain.head().number);
    checkRandomFilters(99);
  });

  it('catches up with the chain when reopened, and still agrees', async () => {
    await logChain.index.close();
    logChain.index = await LogIndex.open({
      dir: join(logChain.dataDir, 'log-index'),
      chain: logChain.chain,
      bus: logChain.bus,
    });
    expect(logChain.index.indexedHeight).toBe(logChain.chain.head().number);
    expect(all.length).toBeGreaterThan(100);
    checkRandomFilters(12345);
  });

  it('selects one block by hash, under either spelling of the field', () => {
    const query = queryWith(limits);
    const withLogs = all[all.length - 1];
    const blockHash = bytesToHex(withLogs.blockHash);
    const expected = all.filter((log) => log.blockNumber === withLogs.blockNumber).map(key);
    expect(query.logs(parseLogFilter({ blockHash })).map(served)).toEqual(expected);
    expect(query.logs(parseLogFilter({ blockhash: blockHash })).map(served)).toEqual(expected);
    expect(() => query.logs(parseLogFilter({ blockHash: bytesToHex(word(1)) }))).toThrow(
      new NotFoundError('unknown block'),
    );
  });

  it('refuses a block hash together with a range, a reversed range and a range past the head', () => {
    const query = queryWith(limits);
    const head = logChain.chain.head().number;
    expect(() => parseLogFilter({ blockHash: bytesToHex(word(1)), fromBlock: '0x1' })).toThrow(
      'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
    );
    const run = (fromBlock: string, toBlock: string) => () =>
      query.logs(parseLogFilter({ fromBlock, toBlock }));
    expect(run('0x5', '0x3')).toThrow(new InvalidInputError('invalid block range params'));
    expect(run(`0x${(head + 10n).toString(16)}`, `0x${(head + 5n).toString(16)}`)).toThrow(
      'invalid block range params',
    );
    expect(run('0x1', `0x${(head + 1n).toString(16)}`)).toThrow(
      new InvalidInputError('block range extends beyond current head block'),
    );
    expect(run(`0x${(head + 1n).toString(16)}`, 'latest')).toThrow(
      'block range extends beyond current head block',
    );
  });

  it('cuts a range past the head at the head when asked to (filter logs)', () => {
    const query = queryWith(limits);
    const head = logChain.chain.head().number;
    const beyond = parseLogFilter({ fromBlock: '0x0', toBlock: `0x${(head + 100n).toString(16)}` });
    expect(query.logs(beyond, 'clamp').map(served)).toEqual(all.map(key));
    const future = parseLogFilter({ fromBlock: `0x${(head + 1n).toString(16)}` });
    expect(query.logs(future, 'clamp')).toEqual([]);
  });

  it('enforces the block range and result limits, naming the flag', () => {
    const narrow = queryWith({ blockRangeCap: 5, logsCap: 10_000 });
    expect(() => narrow.logs(parseLogFilter({ fromBlock: '0x0', toBlock: '0x5' }))).toThrow(
      LimitExceededError,
    );
    expect(() => narrow.logs(parseLogFilter({ fromBlock: '0x0', toBlock: '0x5' }))).toThrow(
      /--json-rpc.block-range-cap/,
    );
    expect(narrow.logs(parseLogFilter({ fromBlock: '0x0', toBlock: '0x4' }))).toBeDefined();
    const few = queryWith({ blockRangeCap: 10_000, logsCap: 3 });
    expect(() => few.logs(parseLogFilter({ fromBlock: '0x0' }))).toThrow(/--json-rpc.logs-cap/);
    const exact = queryWith({ blockRangeCap: 10_000, logsCap: all.length });
    expect(exact.logs(parseLogFilter({ fromBlock: '0x0' }))).toHaveLength(all.length);
  });

  it('refuses more than four topic positions', () => {
    expect(() => parseLogFilter({ topics: [null, null, null, null, null] })).toThrow(
      InvalidInputError,
    );
  });
});
