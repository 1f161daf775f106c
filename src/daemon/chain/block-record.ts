/**
 * Storage form of a block: its RLP values together with the senders of its transactions, so
 * reading a block never needs signature recovery.
 */
import { createBlockFromBytesArray } from '@ethereumjs/block';
import type { Block, BlockBytes } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { Address, bytesToHex } from '@ethereumjs/util';
import type { StoredBlock } from './types.js';

export function encodeBlockRecord(block: Block, senders: readonly Address[]): Uint8Array {
  return RLP.encode([block.raw(), senders.map((s) => s.bytes)]);
}

export function decodeBlockRecord(record: Uint8Array, common: Common): StoredBlock {
  const [values, senders] = RLP.decode(record) as unknown as [BlockBytes, Uint8Array[]];
  const block = createBlockFromBytesArray(values, { common });
  return storedBlock(
    block,
    senders.map((s) => new Address(s)),
  );
}

/** Wraps a block with the facts readers need, computed once. */
export function storedBlock(block: Block, senders: Address[]): StoredBlock {
  const hash = block.hash();
  return {
    block,
    number: block.header.number,
    hash,
    hashHex: bytesToHex(hash),
    size: block.serialize().length,
    senders,
  };
}
