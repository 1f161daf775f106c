/**
 * CometBFT v0.38 JSON of a committed block: header, block id and block.
 *
 * The Ethereum block is the CometBFT block: its hash is the block id hash (and the hash of
 * its single part), the transactions root is `data_hash`, the state root after the block is
 * `app_hash` and the receipts root is `last_results_hash` (CometBFT's app and results hashes
 * describe the previous block; ours describe the block itself, like Ethereum's roots).
 */
import type { StoredBlock } from '../chain/types.js';
import { base64, rfc3339, upperHex } from './wire-encoding.js';

/** Chain facts every header carries. */
export interface HeaderContext {
  /** CometBFT `chain_id`: the EVM chain id in decimal, e.g. "9000". */
  chainId: string;
  /** Upper-case hex hash of the validator set (one validator). */
  validatorsHash: string;
}

/** Block protocol version of CometBFT v0.38; the app version is 0. */
export const BLOCK_PROTOCOL = '11';

/** CometBFT's hash of empty evidence (SHA-256 of nothing). */
const EMPTY_EVIDENCE_HASH = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855';

/** CometBFT `BlockID`: the block hash and its part-set header (one part here). */
export interface BlockIdJson {
  hash: string;
  parts: { total: number; hash: string };
}

/** The block id of a hash; undefined gives CometBFT's empty id (no previous block). */
export function blockIdJson(hash: Uint8Array | undefined): BlockIdJson {
  if (hash === undefined) return { hash: '', parts: { total: 0, hash: '' } };
  const hex = upperHex(hash);
  return { hash: hex, parts: { total: 1, hash: hex } };
}

/** CometBFT `Header` of a committed block. */
export function headerJson(stored: StoredBlock, context: HeaderContext): Record<string, unknown> {
  const header = stored.block.header;
  return {
    version: { block: BLOCK_PROTOCOL, app: '0' },
    chain_id: context.chainId,
    height: stored.number.toString(),
    time: rfc3339(header.timestamp),
    last_block_id: blockIdJson(stored.number === 0n ? undefined : header.parentHash),
    last_commit_hash: '',
    data_hash: upperHex(header.transactionsTrie),
    validators_hash: context.validatorsHash,
    next_validators_hash: context.validatorsHash,
    consensus_hash: '',
    app_hash: upperHex(header.stateRoot),
    last_results_hash: upperHex(header.receiptTrie),
    evidence_hash: EMPTY_EVIDENCE_HASH,
    proposer_address: upperHex(header.coinbase.bytes),
  };
}

/**
 * The block with its raw signed Ethereum transactions (base64) as `data.txs`. There are no
 * commit signatures to show (one validator, no signed votes), so `last_commit.signatures` is
 * empty.
 */
export function blockJson(stored: StoredBlock, context: HeaderContext): Record<string, unknown> {
  const header = stored.block.header;
  return {
    header: headerJson(stored, context),
    data: { txs: stored.block.transactions.map((tx) => base64(tx.serialize())) },
    evidence: { evidence: [] },
    last_commit: {
      height: stored.number === 0n ? '0' : (stored.number - 1n).toString(),
      round: 0,
      block_id: blockIdJson(stored.number === 0n ? undefined : header.parentHash),
      signatures: [],
    },
  };
}
