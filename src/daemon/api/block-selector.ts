/**
 * Turns a JSON-RPC block selector (number, tag, hash, EIP-1898 object) into a block number.
 * With a single-validator BFT engine every committed block is final, so `safe` and
 * `finalized` are the head; `pending` is the head too (the node builds no pending block;
 * methods for which pending matters, such as the nonce, consult the pool themselves).
 */
import { hexToBytes } from '@ethereumjs/util';
import type { ChainReader } from '../chain/chain-reader.js';
import { InvalidInputError, NotFoundError } from '../../shared/errors.js';

export type BlockSelector =
  string | { blockHash: string; requireCanonical?: boolean } | { blockNumber: string };

const HASH = /^0x[0-9a-fA-F]{64}$/;

/** What a selector naming an unknown hash gives: an error, or undefined like a future number. */
type UnknownHash = (hash: string) => undefined;

const refuseUnknownHash: UnknownHash = (hash) => {
  throw new NotFoundError(`header for hash ${hash} not found`);
};

/**
 * Resolves to the block number, or undefined when a number lies beyond the head.
 *
 * @throws NotFoundError for a hash of no block (state queries answer it so, as geth does).
 */
export function resolveBlockNumber(
  chain: ChainReader,
  selector: BlockSelector | undefined,
): bigint | undefined {
  return resolve(chain, selector, refuseUnknownHash);
}

/**
 * Like `resolveBlockNumber`, but a hash of no block is undefined too: block getters answer
 * `null` for it, as geth does.
 */
export function findBlockNumber(
  chain: ChainReader,
  selector: BlockSelector | undefined,
): bigint | undefined {
  return resolve(chain, selector, () => undefined);
}

function resolve(
  chain: ChainReader,
  selector: BlockSelector | undefined,
  unknownHash: UnknownHash,
): bigint | undefined {
  const value = selector ?? 'latest';
  if (typeof value === 'object') {
    return 'blockHash' in value
      ? numberOfHash(chain, value.blockHash, unknownHash)
      : resolve(chain, value.blockNumber, unknownHash);
  }
  switch (value) {
    case 'earliest':
      return 0n;
    case 'latest':
    case 'pending':
    case 'safe':
    case 'finalized':
      return chain.head().number;
  }
  if (HASH.test(value)) return numberOfHash(chain, value, unknownHash);
  const number = BigInt(value);
  return number > chain.head().number ? undefined : number;
}

/** Like `resolveBlockNumber`, but a block beyond the head is an error (state queries). */
export function requireBlockNumber(
  chain: ChainReader,
  selector: BlockSelector | undefined,
): bigint {
  const number = resolveBlockNumber(chain, selector);
  if (number === undefined) throw new NotFoundError('header not found');
  return number;
}

function numberOfHash(
  chain: ChainReader,
  hash: string,
  unknownHash: UnknownHash,
): bigint | undefined {
  if (!HASH.test(hash)) throw new InvalidInputError(`invalid block hash ${hash}`);
  const block = chain.getBlockByHash(hexToBytes(hash as `0x${string}`));
  return block === undefined ? unknownHash(hash) : block.number;
}
