/**
 * Block getters asked for a block that does not exist answer `null`, as geth does, whether the
 * block is named by a number past the head or by a hash of no block; the blocks that exist keep
 * their answers. State queries still refuse an unknown block with -32000.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const UNKNOWN_HASH = `0x${'de'.repeat(32)}`;
const PAST_THE_HEAD = '0xffffff';

describe('block getters for blocks that do not exist', () => {
  let daemon: TestDaemon;
  let genesisHash: string;

  beforeAll(async () => {
    daemon = await startTestDaemon();
    const genesis = await daemon.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false]);
    genesisHash = genesis.hash;
  });
  afterAll(() => daemon?.stop());

  it('answers eth_getBlockReceipts of an unknown hash, plain or {blockHash}, with null', async () => {
    expect(await daemon.rpc.call('eth_getBlockReceipts', [UNKNOWN_HASH])).toBeNull();
    expect(await daemon.rpc.call('eth_getBlockReceipts', [{ blockHash: UNKNOWN_HASH }])).toBeNull();
    expect(await daemon.rpc.call('eth_getBlockReceipts', [PAST_THE_HEAD])).toBeNull();
    expect(await daemon.rpc.call('eth_getBlockReceipts', [genesisHash])).toEqual([]);
  });

  it('still refuses a state query at an unknown hash', async () => {
    const error = await rpcError(
      daemon.rpc.call('eth_getBalance', [`0x${'00'.repeat(20)}`, { blockHash: UNKNOWN_HASH }]),
    );
    expect(error).toMatchObject({
      code: -32000,
      message: `header for hash ${UNKNOWN_HASH} not found`,
    });
  });

  it('answers the uncle counts of a block that does not exist with null, of one that does 0x0', async () => {
    expect(await daemon.rpc.call('eth_getUncleCountByBlockNumber', [PAST_THE_HEAD])).toBeNull();
    expect(await daemon.rpc.call('eth_getUncleCountByBlockHash', [UNKNOWN_HASH])).toBeNull();
    expect(await daemon.rpc.call('eth_getUncleCountByBlockNumber', ['0x0'])).toBe('0x0');
    expect(await daemon.rpc.call('eth_getUncleCountByBlockNumber', ['latest'])).toBe('0x0');
    expect(await daemon.rpc.call('eth_getUncleCountByBlockHash', [genesisHash])).toBe('0x0');
  });
});
