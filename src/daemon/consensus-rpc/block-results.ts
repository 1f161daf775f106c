/**
 * Committed blocks with the consensus result of each transaction, for events and routes.
 *
 * Results of blocks committed while the server runs are kept as the bus published them (they
 * carry the EVM error of failed transactions). Older blocks are rebuilt from their receipts;
 * a rebuilt failure only says `execution failed`, since receipts do not keep the EVM error.
 */
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util';
import type { Chain } from '../chain/chain.js';
import { LruCache } from '../chain/lru-cache.js';
import type { ChainReceipt, StoredBlock, TxResult } from '../chain/types.js';
import type { BlockCommittedEvent } from '../events/event-bus.js';
import type { BlockTx } from './tx-json.js';

/** What the consensus RPC reads from the chain. */
export type ConsensusChain = Pick<
  Chain,
  'chainId' | 'coinbase' | 'head' | 'getBlockByNumber' | 'getBlockReceipts' | 'getTransaction'
>;

/** A committed block and its transactions with their consensus results. */
export interface BlockWithResults {
  stored: StoredBlock;
  txs: BlockTx[];
}

const REMEMBERED_BLOCKS = 256;

function rebuiltResult(stored: StoredBlock, receipt: ChainReceipt, index: number): TxResult {
  const tx = stored.block.transactions[index];
  const recipient = tx.to ?? receipt.contractAddress;
  const hashHex = bytesToHex(receipt.transactionHash);
  return {
    hash: receipt.transactionHash,
    hashHex,
    index,
    code: receipt.status === 1 ? 0 : 1,
    gasUsed: receipt.gasUsed,
    logs: receipt.logs,
    ethereumTx: {
      sender: toChecksumAddress(stored.senders[index].toString()),
      recipient: recipient === undefined ? '' : toChecksumAddress(recipient.toString()),
      ethereumTxHash: hashHex,
      txIndex: String(index),
      amount: tx.value.toString(),
      txGasUsed: receipt.gasUsed.toString(),
      ...(receipt.status === 1 ? {} : { ethereumTxFailed: 'execution failed' }),
    },
  };
}

function withResults(stored: StoredBlock, results: readonly TxResult[]): BlockWithResults {
  return {
    stored,
    txs: results.map((result) => ({
      tx: stored.block.transactions[result.index],
      result,
      height: stored.number,
    })),
  };
}

/** Committed blocks with results: remembered from the bus, rebuilt from receipts otherwise. */
export class BlockResults {
  private readonly recent = new LruCache<bigint, BlockWithResults>(REMEMBERED_BLOCKS);

  constructor(private readonly chain: ConsensusChain) {}

  /** Keeps a block the bus published and returns it with its transactions. */
  remember(event: BlockCommittedEvent): BlockWithResults {
    const block = withResults(event.block, event.results);
    this.recent.set(event.block.number, block);
    return block;
  }

  /** The block at `height` with its results, or undefined above the head. */
  at(height: bigint): BlockWithResults | undefined {
    const cached = this.recent.get(height);
    if (cached !== undefined) return cached;
    const stored = this.chain.getBlockByNumber(height);
    if (stored === undefined) return undefined;
    const receipts = this.chain.getBlockReceipts(height) ?? [];
    return withResults(
      stored,
      receipts.map((receipt, index) => rebuiltResult(stored, receipt, index)),
    );
  }

  /** A committed transaction by its (Ethereum) hash. */
  transaction(hash: Uint8Array): BlockTx | undefined {
    const location = this.chain.getTransaction(hash);
    if (location === undefined) return undefined;
    return this.at(location.blockNumber)?.txs[location.index];
  }
}
