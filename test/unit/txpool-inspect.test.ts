import { beforeAll, describe, expect, it } from '@jest/globals';
import { toChecksumAddress } from '@ethereumjs/util';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { txpoolContent, txpoolInspect, txpoolStatus } from '../../src/daemon/txpool/inspect.js';
import { FakeState, GWEI, RECIPIENT, address, newPool, signTx } from './txpool-fixtures.js';

beforeAll(async () => {
  await initCrypto();
});

async function filledPool() {
  const pool = newPool(new FakeState());
  const legacy = await pool.add(signTx(0, { nonce: 0n, gasPrice: 2n * GWEI, value: 1000n }));
  const creation = await pool.add(
    signTx(0, { nonce: 1n, to: null, data: new Uint8Array([0x60, 0x00]), gasLimit: 60_000n }),
  );
  const queued = await pool.add(
    signTx(1, { nonce: 3n, maxFeePerGas: 7n * GWEI, maxPriorityFeePerGas: 2n * GWEI }),
  );
  return { pool, legacy, creation, queued };
}

describe('txpool views', () => {
  it('status gives QUANTITY counts', async () => {
    const { pool } = await filledPool();
    expect(txpoolStatus(pool)).toEqual({ pending: '0x2', queued: '0x1' });
    expect(txpoolStatus(newPool(new FakeState()))).toEqual({ pending: '0x0', queued: '0x0' });
  });

  it('inspect uses geth text form keyed by checksummed sender and decimal nonce', async () => {
    const { pool } = await filledPool();
    const sender0 = toChecksumAddress(address(0).toString());
    const sender1 = toChecksumAddress(address(1).toString());
    const to = toChecksumAddress(RECIPIENT.toString());
    expect(txpoolInspect(pool)).toEqual({
      pending: {
        [sender0]: {
          '0': `${to}: 1000 wei + 21000 gas × 2000000000 wei`,
          '1': 'contract creation: 1 wei + 60000 gas × 10000000000 wei',
        },
      },
      queued: { [sender1]: { '3': `${to}: 1 wei + 21000 gas × 7000000000 wei` } },
    });
  });

  it('content gives JSON-RPC transaction objects with null block fields', async () => {
    const { pool, legacy, creation, queued } = await filledPool();
    const content = txpoolContent(pool);
    const sender0 = toChecksumAddress(address(0).toString());
    const sender1 = toChecksumAddress(address(1).toString());
    expect(Object.keys(content.pending)).toEqual([sender0]);
    expect(Object.keys(content.pending[sender0])).toEqual(['0', '1']);

    const legacyJson = content.pending[sender0]['0'];
    expect(legacyJson).toEqual({
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      hash: legacy.hashHex,
      type: '0x0',
      from: address(0).toString(),
      to: RECIPIENT.toString(),
      nonce: '0x0',
      value: '0x3e8',
      gas: '0x5208',
      gasPrice: '0x77359400',
      input: '0x',
      chainId: '0x2328',
      v: `0x${legacy.tx.v?.toString(16)}`,
      r: `0x${legacy.tx.r?.toString(16)}`,
      s: `0x${legacy.tx.s?.toString(16)}`,
    });
    expect([0x4673n, 0x4674n]).toContain(legacy.tx.v);

    const creationJson = content.pending[sender0]['1'];
    expect(creationJson.to).toBeNull();
    expect(creationJson.hash).toBe(creation.hashHex);
    expect(creationJson.input).toBe('0x6000');

    const queuedJson = content.queued[sender1]['3'];
    expect(queuedJson).toMatchObject({
      hash: queued.hashHex,
      type: '0x2',
      nonce: '0x3',
      gasPrice: '0x1a13b8600',
      maxFeePerGas: '0x1a13b8600',
      maxPriorityFeePerGas: '0x77359400',
      accessList: [],
      chainId: '0x2328',
      blockHash: null,
    });
    expect(['0x0', '0x1']).toContain(queuedJson.yParity);
    expect(queuedJson.v).toBe(queuedJson.yParity);
  });
});
