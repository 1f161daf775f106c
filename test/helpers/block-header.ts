/**
 * Re-hashes a block object the way Ethereum clients do: keccak256 of the RLP of its header
 * fields, in the order of the Prague header. Written for the tests, independent of the node's
 * block code, to check that a block's `hash` commits to the fields it reports.
 */
import { encodeRlp, keccak256, toBeArray } from 'ethers';
import { EMPTY_UNCLES_HASH } from './dev-chain.js';

/** A block object as eth_getBlockBy* returns it (spec-mode nulls allowed). */
export type RawBlock = Record<string, unknown> & { hash: string; number: string };

const quantityBytes = (value: unknown): Uint8Array => toBeArray(BigInt(value as string));

/** keccak256 of the block's RLP header; the spec's nulls stand for their post-merge values. */
export function rehashBlockHeader(block: RawBlock): string {
  const fields = [
    block.parentHash,
    block.sha3Uncles ?? EMPTY_UNCLES_HASH,
    block.miner,
    block.stateRoot,
    block.transactionsRoot,
    block.receiptsRoot,
    block.logsBloom,
    quantityBytes(block.difficulty ?? '0x0'),
    quantityBytes(block.number),
    quantityBytes(block.gasLimit),
    quantityBytes(block.gasUsed),
    quantityBytes(block.timestamp),
    block.extraData,
    block.mixHash,
    block.nonce ?? '0x0000000000000000',
    quantityBytes(block.baseFeePerGas),
    block.withdrawalsRoot,
    quantityBytes(block.blobGasUsed),
    quantityBytes(block.excessBlobGas),
    block.parentBeaconBlockRoot,
    block.requestsHash,
  ];
  return keccak256(encodeRlp(fields as Array<string | Uint8Array>));
}
