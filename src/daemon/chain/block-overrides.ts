/**
 * geth's block overrides of `eth_call` and `eth_estimateGas` (their fourth parameter): the call
 * runs in a block whose header fields are replaced. The values are plain data (numbers and
 * bytes), so a request carrying them crosses to the call threads as it is.
 */
import { createBlock } from '@ethereumjs/block';
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { NotFoundError } from '../../shared/errors.js';

export interface BlockOverrides {
  number?: bigint;
  /** The block's timestamp (TIMESTAMP). */
  time?: bigint;
  gasLimit?: bigint;
  /** The coinbase (COINBASE), 20 bytes. */
  feeRecipient?: Uint8Array;
  /** PREVRANDAO, 32 bytes. */
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  blobBaseFee?: bigint;
}

/**
 * The block a call with `overrides` runs in: `header` with the overridden fields. As for every
 * call, one without fees sees a zero base fee (geth lowers it so, whatever the override), and
 * without a gas limit override the block has room for the call's `gasLimit`.
 */
export function overriddenCallBlock(
  common: Common,
  header: BlockHeader,
  overrides: BlockOverrides,
  withFee: boolean,
  gasLimit: bigint,
): Block {
  const block = createBlock(
    {
      header: {
        ...header.toJSON(),
        number: overrides.number ?? header.number,
        timestamp: overrides.time ?? header.timestamp,
        gasLimit: overrides.gasLimit ?? (gasLimit > header.gasLimit ? gasLimit : header.gasLimit),
        // The header must not have used more gas than a lowered limit allows.
        gasUsed: 0n,
        coinbase: overrides.feeRecipient ?? header.coinbase,
        mixHash: overrides.prevRandao ?? header.mixHash,
        baseFeePerGas: withFee ? (overrides.baseFeePerGas ?? header.baseFeePerGas) : 0n,
      },
    },
    { common, freeze: false },
  );
  const { blobBaseFee } = overrides;
  // The header derives BLOBBASEFEE from its excess blob gas, which no value gives exactly.
  if (blobBaseFee !== undefined) block.header.getBlobGasPrice = () => blobBaseFee;
  return block;
}

const ZERO_HASH = new Uint8Array(32);

/**
 * BLOCKHASH for a call in a block numbered past the chain: blocks that do not exist hash to
 * zero, as geth answers, instead of failing the call.
 */
export function zeroForMissingBlocks(
  blockchain: EVMMockBlockchainInterface,
): EVMMockBlockchainInterface {
  const source: EVMMockBlockchainInterface = {
    getBlock: async (number: number) => {
      try {
        return await blockchain.getBlock(number);
      } catch (error) {
        if (error instanceof NotFoundError) return { hash: () => ZERO_HASH };
        throw error;
      }
    },
    putBlock: async () => {},
    shallowCopy: () => source,
  };
  return source;
}
