/** A chain with its event bus and log index in a temp dir, and contracts that emit chosen logs. */
import { join } from 'node:path';
import type { TypedTransaction } from '@ethereumjs/tx';
import { concatBytes, hexToBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import type { CommittedBlock } from '../../src/daemon/chain/types.js';
import { EventBus } from '../../src/daemon/events/event-bus.js';
import { LogIndex } from '../../src/daemon/events/log-index.js';
import { deployCode, pooled, signTx, tempDataDir } from './chain-fixtures.js';

/**
 * Runtime that emits one LOG`topicCount` per call: topics are calldata words 0..k-1, the data
 * is calldata word k.
 */
export function logEmitterRuntime(topicCount: number): Uint8Array {
  const push1 = (value: number) => Uint8Array.of(0x60, value);
  const parts: Uint8Array[] = [
    push1(topicCount * 32),
    Uint8Array.of(0x35),
    push1(0),
    Uint8Array.of(0x52),
  ];
  for (let position = topicCount - 1; position >= 0; position--) {
    parts.push(push1(position * 32), Uint8Array.of(0x35));
  }
  parts.push(push1(32), push1(0), Uint8Array.of(0xa0 + topicCount), Uint8Array.of(0x00));
  return concatBytes(...parts);
}

export const word = (n: number | bigint): Uint8Array =>
  hexToBytes(`0x${BigInt(n).toString(16).padStart(64, '0')}`);

export interface LogChain {
  chain: Chain;
  bus: EventBus;
  index: LogIndex;
  dataDir: string;
  /** Commits `txs` and publishes the block on the bus (as the consensus engine does). */
  commit(txs: TypedTransaction[], publish?: boolean): Promise<CommittedBlock>;
  /** Signs a transaction of dev account 0 with the next nonce. */
  tx(fields: { to?: Address; data: Uint8Array; gasLimit?: bigint }): TypedTransaction;
  /** Deploys one emitter per topic count 0..4, returns their addresses by topic count. */
  deployEmitters(): Promise<Address[]>;
  close(): Promise<void>;
}

export async function openLogChain(): Promise<LogChain> {
  const tmp = tempDataDir();
  const chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis() });
  const bus = new EventBus({
    onListenerError: (error) => {
      throw error;
    },
  });
  const index = await LogIndex.open({ dir: join(tmp.dir, 'log-index'), chain, bus });
  let nonce = 0n;
  let timestamp = 1n;
  const logChain: LogChain = {
    chain,
    bus,
    index,
    dataDir: tmp.dir,
    commit: async (txs, publish = true) => {
      const committed = await chain.buildAndCommitBlock(txs.map(pooled), timestamp++);
      if (publish) bus.publishBlock(committed);
      return committed;
    },
    tx: (fields) =>
      signTx(chain.common, 0, {
        nonce: nonce++,
        to: fields.to,
        data: fields.data,
        gasLimit: fields.gasLimit ?? 200_000n,
      }),
    deployEmitters: async () => {
      const txs = [0, 1, 2, 3, 4].map((k) =>
        logChain.tx({ data: deployCode(logEmitterRuntime(k)) }),
      );
      const committed = await logChain.commit(txs);
      return committed.receipts.map((receipt) => receipt.contractAddress!);
    },
    close: async () => {
      await logChain.index.close();
      await chain.close();
      tmp.cleanup();
    },
  };
  return logChain;
}
