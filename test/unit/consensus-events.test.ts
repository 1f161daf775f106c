import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import type { CommittedBlock } from '../../src/daemon/chain/types.js';
import { blockEvents } from '../../src/daemon/consensus-rpc/block-events.js';
import { BlockResults } from '../../src/daemon/consensus-rpc/block-results.js';
import { txFlatEvents } from '../../src/daemon/consensus-rpc/tx-json.js';
import {
  deployCode,
  devAddress,
  pooled,
  signTx,
  storeContractRuntime,
  tempDataDir,
} from './chain-fixtures.js';

const context = { chainId: '9000', validatorsHash: 'AB'.repeat(32) };
const upper = (bytes: Uint8Array) => bytesToHex(bytes).slice(2).toUpperCase();

/** Parses an event's `"data":…,"events":…` fragment. */
/** The parts of event values these tests read; each event type fills some of them. */
interface EventValue {
  block: { header: Record<string, unknown>; data: { txs: string[] } };
  block_id: { hash: string };
  result_finalize_block: { tx_results: unknown[] };
  TxResult: { result: Record<string, unknown> };
}

function payloadOf(fragment: string): {
  data: { type: string; value: EventValue };
  events: Record<string, string[]>;
} {
  return JSON.parse(`{${fragment}}`);
}

describe('consensus events of a committed block', () => {
  let chain: Chain;
  let cleanup: () => void;
  let committed: CommittedBlock;
  let contract: string;

  beforeAll(async () => {
    const tmp = tempDataDir();
    cleanup = tmp.cleanup;
    chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis() });
    const deploy = signTx(chain.common, 0, {
      nonce: 0n,
      data: deployCode(storeContractRuntime()),
      gasLimit: 200_000n,
    });
    const deployed = await chain.buildAndCommitBlock([pooled(deploy)], 1n);
    contract = deployed.receipts[0].contractAddress!.toString();
    const transfer = signTx(chain.common, 1, { nonce: 0n, to: devAddress(2), value: 12345n });
    // Empty calldata makes the test contract revert.
    const reverting = signTx(chain.common, 0, {
      nonce: 1n,
      to: deployed.receipts[0].contractAddress!,
      gasLimit: 100_000n,
    });
    committed = await chain.buildAndCommitBlock([pooled(transfer), pooled(reverting)], 2n);
  });

  afterAll(async () => {
    await chain.close();
    cleanup();
  });

  it('publishes NewBlock, NewBlockHeader, NewBlockEvents, then one Tx per transaction', () => {
    const blocks = new BlockResults(chain);
    const events = blockEvents(blocks.remember(committed), context);
    expect(events.map((e) => e.type)).toEqual([
      'NewBlock',
      'NewBlockHeader',
      'NewBlockEvents',
      'Tx',
      'Tx',
    ]);
    expect(events.map((e) => e.events['tm.event'])).toEqual([
      ['NewBlock'],
      ['NewBlockHeader'],
      ['NewBlockEvents'],
      ['Tx'],
      ['Tx'],
    ]);
  });

  it('shapes blocks and headers like CometBFT v0.38, with the Ethereum hashes', () => {
    const events = blockEvents(new BlockResults(chain).remember(committed), context);
    const { block } = committed;
    const newBlock = payloadOf(events[0].payload());
    expect(newBlock.data.type).toBe('tendermint/event/NewBlock');
    const header = newBlock.data.value.block.header;
    expect(header).toMatchObject({
      version: { block: '11', app: '0' },
      chain_id: '9000',
      height: '2',
      time: '1970-01-01T00:00:02Z',
      last_block_id: { hash: upper(block.block.header.parentHash), parts: { total: 1 } },
      app_hash: upper(block.block.header.stateRoot),
      data_hash: upper(block.block.header.transactionsTrie),
      validators_hash: context.validatorsHash,
    });
    expect(newBlock.data.value.block_id.hash).toBe(upper(block.hash));
    expect(newBlock.data.value.block.data.txs).toEqual(
      block.block.transactions.map((tx) => Buffer.from(tx.serialize()).toString('base64')),
    );
    expect(newBlock.data.value.result_finalize_block.tx_results).toHaveLength(2);
    expect(newBlock.events).toEqual({ 'tm.event': ['NewBlock'] });
    expect(payloadOf(events[1].payload()).data.value).toEqual({ header });
    expect(payloadOf(events[2].payload()).data.value).toEqual({
      height: '2',
      events: [],
      num_txs: '2',
    });
  });

  it('gives each Tx its ethereum_tx event, tx.hash and tx.height', () => {
    const events = blockEvents(new BlockResults(chain).remember(committed), context);
    const [ok, failed] = events.slice(3).map((e) => payloadOf(e.payload()));
    const okHash = committed.results[0].hashHex;
    expect(ok.events).toEqual({
      'ethereum_tx.amount': ['12345'],
      'ethereum_tx.ethereumTxHash': [okHash],
      'ethereum_tx.txIndex': ['0'],
      'ethereum_tx.txGasUsed': ['21000'],
      'ethereum_tx.sender': [toChecksumAddress(devAddress(1).toString())],
      'ethereum_tx.recipient': [toChecksumAddress(devAddress(2).toString())],
      'tm.event': ['Tx'],
      'tx.hash': [okHash.slice(2).toUpperCase()],
      'tx.height': ['2'],
    });
    expect(ok.data.type).toBe('tendermint/event/Tx');
    expect(ok.data.value.TxResult).toMatchObject({
      height: '2',
      index: 0,
      tx: Buffer.from(committed.block.block.transactions[0].serialize()).toString('base64'),
      result: { gas_wanted: '21000', gas_used: '21000' },
    });
    expect(ok.data.value.TxResult.result.code).toBeUndefined();
    expect(failed.data.value.TxResult.result).toMatchObject({ code: 1, log: 'execution reverted' });
    expect(failed.events['ethereum_tx.ethereumTxFailed']).toEqual(['execution reverted']);
    expect(failed.events['ethereum_tx.recipient'][0].toLowerCase()).toBe(contract);
  });

  it('rebuilds results of blocks it did not see published from their receipts', () => {
    const rebuilt = new BlockResults(chain).at(2n)!;
    const live = new BlockResults(chain).remember(committed);
    expect(txFlatEvents(rebuilt.txs[0])).toEqual(txFlatEvents(live.txs[0]));
    expect(rebuilt.txs[1].result.code).toBe(1);
    expect(rebuilt.txs[1].result.ethereumTx.ethereumTxFailed).toBe('execution failed');
    expect(new BlockResults(chain).transaction(committed.results[1].hash)?.result.index).toBe(1);
    expect(new BlockResults(chain).at(3n)).toBeUndefined();
  });

  it('builds an event body only when asked, and once', () => {
    const events = blockEvents(new BlockResults(chain).remember(committed), context);
    const first = events[0].payload();
    expect(events[0].payload()).toBe(first);
  });
});
