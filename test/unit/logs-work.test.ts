import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { Interface } from 'ethers';
import { serialiseLog } from '../../src/daemon/api/eth-logs.js';
import type { ChainLog } from '../../src/daemon/chain/types.js';
import { parseLogFilter } from '../../src/daemon/events/log-filter.js';
import { LogQuery } from '../../src/daemon/events/log-query.js';
import { ServedLogs } from '../../src/daemon/events/served-logs.js';
import { openLogChain, type LogChain } from './logs-fixtures.js';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/contracts/Fixture.json', import.meta.url), 'utf8'),
) as { abi: unknown[]; bytecode: string };
const abi = new Interface(fixture.abi as string[]);
const UNKNOWN = '0x000000000000000000000000000000000000dead';

/**
 * The benchmark's shape: 10 000 logs from one contract among many empty blocks. What keeps
 * eth_getLogs fast, checked without timing: the index narrows the blocks whose logs are read,
 * and the logs of queried blocks are kept in their served form (docs/events.md has the
 * measurements).
 */
describe('eth_getLogs work', () => {
  let logChain: LogChain;
  let address: string;

  beforeAll(async () => {
    logChain = await openLogChain();
    const deployed = await logChain.commit([
      logChain.tx({
        data: hexToBytes(fixture.bytecode as PrefixedHexString),
        gasLimit: 1_000_000n,
      }),
    ]);
    address = deployed.receipts[0].contractAddress!.toString();
    const emit = hexToBytes(abi.encodeFunctionData('emitMany', [500]) as PrefixedHexString);
    for (let block = 0; block < 10; block++) {
      const txs = [0, 1].map(() =>
        logChain.tx({ to: deployed.receipts[0].contractAddress, data: emit, gasLimit: 2_000_000n }),
      );
      const committed = await logChain.commit(txs);
      expect(committed.receipts.map((r) => r.status)).toEqual([1, 1]);
    }
    // Empty blocks the index lets the query skip.
    for (let block = 0; block < 200; block++) await logChain.commit([]);
    await logChain.index.whenIdle();
  }, 120_000);

  afterAll(async () => {
    await logChain.close();
  });

  const newQuery = () =>
    new LogQuery(
      logChain.chain,
      logChain.index,
      { blockRangeCap: 10_000, logsCap: 10_000 },
      new ServedLogs(logChain.chain, serialiseLog),
    );

  it('reads the logs of the blocks that can match only, and each block once', () => {
    const query = newQuery();
    const read = jest.spyOn(logChain.chain, 'getBlockLogs');
    try {
      const logs = query.logs(parseLogFilter({ fromBlock: '0x0', toBlock: 'latest', address }));
      expect(logs).toHaveLength(10_000);
      expect(read).toHaveBeenCalledTimes(10);
      read.mockClear();
      const tick7 = `0x${'7'.padStart(64, '0')}`;
      expect(query.logs(parseLogFilter({ fromBlock: '0x0', topics: [null, tick7] }))).toHaveLength(
        20,
      );
      expect(read).not.toHaveBeenCalled();
      expect(newQuery().logs(parseLogFilter({ fromBlock: '0x0', address: UNKNOWN }))).toEqual([]);
      expect(read).not.toHaveBeenCalled();
    } finally {
      read.mockRestore();
    }
  });

  it('answers a repeated query with the same texts, formatted as for any other log', () => {
    const query = newQuery();
    const filter = parseLogFilter({ fromBlock: '0x0', toBlock: 'latest', address });
    const first = query.logs(filter);
    const again = query.logs(filter);
    expect(again).toHaveLength(10_000);
    expect(again.every((log, i) => log.json === first[i].json)).toBe(true);
    const newest = logChain.chain.getBlockReceipts(
      BigInt(JSON.parse(first[9_999].json).blockNumber),
    );
    expect(first[9_999].json).toBe(serialiseLog(newest!.at(-1)!.logs.at(-1)!));
  });

  it('agrees with a brute-force scan for random filters over the 10 000 logs', () => {
    const query = newQuery();
    const head = Number(logChain.chain.head().number);
    const all: ChainLog[] = [];
    for (let n = 0n; n <= BigInt(head); n++) {
      for (const receipt of logChain.chain.getBlockReceipts(n)!) all.push(...receipt.logs);
    }
    expect(all).toHaveLength(10_000);
    const tick = abi.getEvent('Tick')!.topicHash;
    const index = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
    for (let round = 0; round < 40; round++) {
      const from = Math.floor(next() * 12);
      const to = from + Math.floor(next() * (head - from + 1));
      const addresses = pick([undefined, address, [address, UNKNOWN], UNKNOWN]);
      const first = pick([null, tick, [tick, UNKNOWN.padEnd(66, '0')]]);
      const second = pick([
        null,
        index(Math.floor(next() * 500)),
        [index(3), index(499), index(250)],
      ]);
      const topics = pick([undefined, [first], [first, second], [null, second]]);
      const filter = {
        fromBlock: `0x${from.toString(16)}`,
        toBlock: `0x${to.toString(16)}`,
        address: addresses,
        topics,
      };
      const wanted = (position: number, value: string | undefined) => {
        const rule = topics?.[position];
        if (rule === undefined || rule === null) return true;
        if (value === undefined) return false;
        return (Array.isArray(rule) ? rule : [rule]).includes(value);
      };
      const expected = all
        .filter((log) => log.blockNumber >= BigInt(from) && log.blockNumber <= BigInt(to))
        .filter((log) => {
          const emitter = log.address.toString();
          return (
            addresses === undefined ||
            (Array.isArray(addresses) ? addresses.includes(emitter) : addresses === emitter)
          );
        })
        .filter((log) =>
          (topics ?? []).every((_rule, position) =>
            wanted(position, log.topics[position] && bytesToHex(log.topics[position])),
          ),
        )
        .map(serialiseLog);
      const actual = query.logs(parseLogFilter(filter)).map((log) => log.json);
      expect({ round, filter, count: actual.length, actual }).toEqual({
        round,
        filter,
        count: expected.length,
        actual: expected,
      });
    }
  });
});
