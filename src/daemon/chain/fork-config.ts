/**
 * What this chain's one fork is, in the terms of EIP-7910 (`eth_config`): every block of the
 * chain, the genesis included, runs `CHAIN_HARDFORK`, so there is no fork before it or after it.
 *
 * - The fork id (EIP-2124/6122) is the CRC-32 of the genesis hash alone: forks active at the
 *   genesis are not part of the checksum, and no other fork is scheduled.
 * - System contracts: none. This chain's blocks carry no beacon root, withdrawals or requests, so
 *   the node neither deploys nor calls the contracts of EIP-4788, 2935, 7002, 7251 or the deposit
 *   contract; listing their addresses would tell a client they are there.
 * - Precompiles are those EthereumJS activates for the fork. The point evaluation of EIP-4844
 *   (0x0a) is listed because the address is reserved and charged as the fork says, though every
 *   evaluation fails on this node (`evm-crypto.ts`: no KZG library is bundled).
 */
import { crc32 } from 'node:zlib';
import { paramsBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles } from '@ethereumjs/evm';

/** Blob limits of a fork, counted in blobs, and the blob base fee's update fraction. */
export interface BlobSchedule {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

export interface ForkConfig {
  /** Unix seconds; 0: active from the genesis. */
  activationTime: number;
  chainId: bigint;
  /** FORK_HASH of EIP-6122: 4 bytes. */
  forkId: Uint8Array;
  blobSchedule: BlobSchedule;
  /** EIP-7910 name to 20-byte address (lower-case hex, `0x`). */
  precompiles: Record<string, string>;
  systemContracts: Record<string, string>;
}

/** The names EIP-7910 gives the precompiles, by the last byte of their address. */
const PRECOMPILE_NAMES: ReadonlyMap<number, string> = new Map([
  [0x01, 'ECREC'],
  [0x02, 'SHA256'],
  [0x03, 'RIPEMD160'],
  [0x04, 'ID'],
  [0x05, 'MODEXP'],
  [0x06, 'BN254_ADD'],
  [0x07, 'BN254_MUL'],
  [0x08, 'BN254_PAIRING'],
  [0x09, 'BLAKE2F'],
  [0x0a, 'KZG_POINT_EVALUATION'],
  [0x0b, 'BLS12_G1ADD'],
  [0x0c, 'BLS12_G1MSM'],
  [0x0d, 'BLS12_G2ADD'],
  [0x0e, 'BLS12_G2MSM'],
  [0x0f, 'BLS12_PAIRING_CHECK'],
  [0x10, 'BLS12_MAP_FP_TO_G1'],
  [0x11, 'BLS12_MAP_FP2_TO_G2'],
]);

/** Gas one blob takes (EIP-4844), which turns the per-block blob gas limits into blob counts. */
const BLOB_GAS_PER_BLOB = 131_072n;

/**
 * The active precompiles by name.
 *
 * @throws Error for an active precompile with no EIP-7910 name here: a newer EthereumJS fork
 *   added one, and the table must learn its name rather than leave it out.
 */
export function activePrecompiles(common: Common): Record<string, string> {
  const named: Record<string, string> = {};
  for (const unprefixed of getActivePrecompiles(common).keys()) {
    const name = PRECOMPILE_NAMES.get(Number.parseInt(unprefixed, 16));
    if (name === undefined) throw new Error(`no EIP-7910 name for precompile 0x${unprefixed}`);
    named[name] = `0x${unprefixed}`;
  }
  return named;
}

function blobSchedule(common: Common): BlobSchedule {
  // The blob parameters are the block package's, which a `Common` holds once a block is built.
  const withBlockParams = common.copy();
  withBlockParams.updateParams(paramsBlock);
  const schedule = withBlockParams.getBlobGasSchedule();
  return {
    target: Number(schedule.targetBlobGasPerBlock / BLOB_GAS_PER_BLOB),
    max: Number(schedule.maxBlobGasPerBlock / BLOB_GAS_PER_BLOB),
    baseFeeUpdateFraction: Number(schedule.blobGasPriceUpdateFraction),
  };
}

/** FORK_HASH of a chain whose forks are all active at its genesis. */
export function genesisForkId(genesisHash: Uint8Array): Uint8Array {
  const forkId = new Uint8Array(4);
  new DataView(forkId.buffer).setUint32(0, crc32(genesisHash));
  return forkId;
}

/** The configuration of the chain's only fork. */
export function forkConfig(common: Common, genesisHash: Uint8Array): ForkConfig {
  return {
    activationTime: 0,
    chainId: common.chainId(),
    forkId: genesisForkId(genesisHash),
    blobSchedule: blobSchedule(common),
    precompiles: activePrecompiles(common),
    systemContracts: {},
  };
}
