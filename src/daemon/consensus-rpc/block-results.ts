/**
 * Committed blocks with the consensus result of each transaction, for events and routes.
 *
 * Results of blocks committed while the server runs are kept as the bus published them (they
 * carry the EVM error of failed transactions). Older blocks are rebuilt from their receipts;
 * a rebuilt failure only says `execution failed`, since receipts do not keep the EVM error.
 */
import { bytesToHex } from '@ethereumjs/util';
import type { Chain } from '../chain/chain.js';
import { checksumAddress } from '../chain/checksum-address.js';
import { LruCache } from '../chain/lru-cache.js';
import { resultsRetainedBytes } from '../chain/retained-size.js';
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

/**
 * Memory budget of the remembered results (those of some 8 000 transactions). Only the results
 * are kept: the block itself comes from the chain's own bounded cache, so a decoded block is
 * never held twice.
 */
const REMEMBERED_BYTES = 2 * 2 ** 20;

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
      sender: checksumAddress(stored.senders[index]),
      recipient: recipient === undefined ? '' : checksumAddress(recipient),
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
  private readonly recent: LruCache<bigint, readonly TxResult[]>;

  /** `budgetBytes`: estimated memory the remembered results may take. */
  constructor(
    private readonly chain: ConsensusChain,
    budgetBytes: number = REMEMBERED_BYTES,
  ) {
    this.recent = new LruCache(budgetBytes, resultsRetainedBytes);
  }

  /** Keeps the results of a block the bus published and returns it with its transactions. */
  remember(event: BlockCommittedEvent): BlockWithResults {
    this.recent.set(event.block.number, event.results);
    return withResults(event.block, event.results);
  }

  /** Drops the remembered results: after a development rewind a height may name another block. */
  forget(): void {
    this.recent.clear();
  }

  /** The block at `height` with its results, or undefined above the head. */
  at(height: bigint): BlockWithResults | undefined {
    const stored = this.chain.getBlockByNumber(height);
    if (stored === undefined) return undefined;
    const remembered = this.recent.get(height);
    if (remembered !== undefined) return withResults(stored, remembered);
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
