/** eth_* methods that read committed blocks, their transactions and receipts. */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { BlockOutline, StoredBlock } from '../chain/types.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import { findBlockNumber, resolveBlockNumber, type BlockSelector } from './block-selector.js';
import {
  formatBlock,
  formatBlockOutline,
  formatReceipt,
  formatTransaction,
  hex,
  locationInBlock,
  quantity,
} from './formatters.js';
import {
  blockNumberOrTagSchema,
  blockSelectorSchema,
  booleanSchema,
  hash32Schema,
  uint64Schema,
} from './hex-schemas.js';
import type { ChainView } from './services.js';

const bytes = (value: string) => hexToBytes(value as PrefixedHexString);
const blockHashParam = { name: 'blockHash', schema: hash32Schema };
const blockNumberParam = { name: 'block', schema: blockNumberOrTagSchema };
const indexParam = { name: 'index', schema: uint64Schema };

/** BFT blocks have no uncles; a block that does not exist has no count, as in geth. */
const uncleCount = (outline: BlockOutline | undefined) => (outline ? quantity(0) : null);

export function ethBlockMethods({ chain, format }: ChainView): MethodDefinition[] {
  const byNumber = (selector: BlockSelector): StoredBlock | undefined => {
    const number = resolveBlockNumber(chain, selector);
    return number === undefined ? undefined : chain.getBlockByNumber(number);
  };
  const byHash = (hash: string) => chain.getBlockByHash(bytes(hash));
  // Answers that list no transaction's body read only the block's outline.
  const outlineByNumber = (selector: BlockSelector) => {
    const number = resolveBlockNumber(chain, selector);
    return number === undefined ? undefined : chain.getBlockOutline(number);
  };
  const outlineByHash = (hash: string) => chain.getBlockOutlineByHash(bytes(hash));
  const blockJson = (
    full: boolean,
    whole: () => StoredBlock | undefined,
    outline: () => BlockOutline | undefined,
  ) => {
    if (full) {
      const block = whole();
      return block ? formatBlock(block, true, format) : null;
    }
    const found = outline();
    return found ? formatBlockOutline(found, format) : null;
  };

  const transactionAt = (block: StoredBlock | undefined, index: string) => {
    const position = Number(BigInt(index));
    const tx = block?.block.transactions[position];
    if (!block || !tx) return null;
    return formatTransaction(tx, block.senders[position], locationInBlock(block, position));
  };

  const transactionByBlockNumberAndIndex = (name: string) =>
    defineMethod<[BlockSelector, string]>({
      name,
      params: [blockNumberParam, indexParam],
      handler: ([selector, index]) => transactionAt(byNumber(selector), index),
    });
  const rawTransactionAt = (block: StoredBlock | undefined, index: string) => {
    const tx = block?.block.transactions[Number(BigInt(index))];
    return tx === undefined ? null : hex(tx.serialize());
  };

  return [
    defineMethod<[]>({
      name: 'eth_blockNumber',
      params: [],
      handler: () => quantity(chain.head().number),
    }),
    defineMethod<[BlockSelector, boolean]>({
      name: 'eth_getBlockByNumber',
      params: [blockNumberParam, { name: 'fullTransactions', schema: booleanSchema }],
      handler: ([selector, full]) =>
        blockJson(
          full,
          () => byNumber(selector),
          () => outlineByNumber(selector),
        ),
    }),
    defineMethod<[string, boolean]>({
      name: 'eth_getBlockByHash',
      params: [blockHashParam, { name: 'fullTransactions', schema: booleanSchema }],
      handler: ([hash, full]) =>
        blockJson(
          full,
          () => byHash(hash),
          () => outlineByHash(hash),
        ),
    }),
    defineMethod<[BlockSelector]>({
      name: 'eth_getBlockTransactionCountByNumber',
      params: [blockNumberParam],
      handler: ([selector]) => {
        const outline = outlineByNumber(selector);
        return outline ? quantity(outline.transactionHashes.length) : null;
      },
    }),
    defineMethod<[string]>({
      name: 'eth_getBlockTransactionCountByHash',
      params: [blockHashParam],
      handler: ([hash]) => {
        const outline = outlineByHash(hash);
        return outline ? quantity(outline.transactionHashes.length) : null;
      },
    }),
    defineMethod<[BlockSelector]>({
      name: 'eth_getUncleCountByBlockNumber',
      params: [blockNumberParam],
      handler: ([selector]) => uncleCount(outlineByNumber(selector)),
    }),
    defineMethod<[string]>({
      name: 'eth_getUncleCountByBlockHash',
      params: [blockHashParam],
      handler: ([hash]) => uncleCount(outlineByHash(hash)),
    }),
    defineMethod<[string, string]>({
      name: 'eth_getTransactionByBlockHashAndIndex',
      params: [blockHashParam, indexParam],
      handler: ([hash, index]) => transactionAt(byHash(hash), index),
    }),
    defineMethod<[string, string]>({
      name: 'eth_getRawTransactionByBlockHashAndIndex',
      params: [blockHashParam, indexParam],
      handler: ([hash, index]) => rawTransactionAt(byHash(hash), index),
    }),
    defineMethod<[BlockSelector, string]>({
      name: 'eth_getRawTransactionByBlockNumberAndIndex',
      params: [blockNumberParam, indexParam],
      handler: ([selector, index]) => rawTransactionAt(byNumber(selector), index),
    }),
    transactionByBlockNumberAndIndex('eth_getTransactionByBlockNumberAndIndex'),
    transactionByBlockNumberAndIndex('eth_getTransactionbyBlockNumberAndIndex'),
    defineMethod<[string]>({
      name: 'eth_getTransactionReceipt',
      params: [{ name: 'transactionHash', schema: hash32Schema }],
      handler: ([hash]) => {
        const receipt = chain.getReceipt(bytes(hash));
        return receipt ? formatReceipt(receipt) : null;
      },
    }),
    defineMethod<[BlockSelector]>({
      name: 'eth_getBlockReceipts',
      params: [{ name: 'block', schema: blockSelectorSchema }],
      handler: ([selector]) => {
        const number = findBlockNumber(chain, selector);
        const receipts = number === undefined ? undefined : chain.getBlockReceipts(number);
        return receipts ? receipts.map(formatReceipt) : null;
      },
    }),
  ];
}
