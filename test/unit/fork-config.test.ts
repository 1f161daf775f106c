import { beforeAll, describe, expect, it } from '@jest/globals';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import {
  activePrecompiles,
  forkConfig,
  genesisForkId,
} from '../../src/daemon/chain/fork-config.js';
import { createChainCommon } from '../../src/daemon/chain/common.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';

/** Mainnet's genesis hash and the fork hash EIP-2124 gives for it before any fork. */
const MAINNET_GENESIS = '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3';
const MAINNET_FRONTIER_FORK_HASH = '0xfc64ec04';

describe('fork configuration (EIP-7910)', () => {
  beforeAll(() => initCrypto());

  it('computes the fork id of a chain with no fork after its genesis as EIP-2124 does', () => {
    expect(bytesToHex(genesisForkId(hexToBytes(MAINNET_GENESIS)))).toBe(MAINNET_FRONTIER_FORK_HASH);
  });

  it('names each active precompile, and only the active ones', () => {
    const cancun = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
    expect(Object.keys(activePrecompiles(cancun))).toHaveLength(10);
    expect(activePrecompiles(cancun).KZG_POINT_EVALUATION).toBe(`0x${'00'.repeat(19)}0a`);
    expect(activePrecompiles(cancun).BLS12_G1ADD).toBeUndefined();
  });

  it('describes this chain’s Prague from the genesis on', () => {
    const config = forkConfig(createChainCommon(9000n), hexToBytes(MAINNET_GENESIS));
    expect(config).toMatchObject({
      activationTime: 0,
      chainId: 9000n,
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
      systemContracts: {},
    });
    expect(Object.keys(config.precompiles)).toHaveLength(17);
  });
});
