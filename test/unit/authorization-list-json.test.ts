/**
 * EIP-7702 authorizations in JSON-RPC answers: numbers as quantities, as geth gives them and as
 * ethers parses them, both for a committed transaction and for one still in the pool.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createEOACode7702Tx, type EOACode7702Tx } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { Signature, Transaction } from 'ethers';
import { formatTransaction } from '../../src/daemon/api/formatters.js';
import { createChainCommon } from '../../src/daemon/chain/common.js';
import { initCrypto } from '../../src/daemon/crypto/wasm-crypto.js';
import { pendingTransactionJson } from '../../src/daemon/txpool/transaction-json.js';
import { devKey, pooled } from './chain-fixtures.js';

const common = createChainCommon(9000n);
const delegate: `0x${string}` = `0x${'5f'.repeat(20)}`;

/** A set-code transaction whose authorizations sign zero and small numbers, and a padded `s`. */
const signedTx = () =>
  createEOACode7702Tx(
    {
      nonce: 0n,
      to: delegate,
      gasLimit: 100_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      authorizationList: [
        {
          chainId: '0x',
          address: delegate,
          nonce: '0x',
          yParity: '0x',
          r: `0x${'11'.repeat(32)}`,
          s: `0x00${'22'.repeat(31)}`,
        },
        {
          chainId: '0x2328',
          address: delegate,
          nonce: '0x02',
          yParity: '0x01',
          r: `0x${'33'.repeat(32)}`,
          s: `0x${'44'.repeat(32)}`,
        },
      ],
    },
    { common },
  ).sign(devKey(1));

let tx: EOACode7702Tx;
beforeAll(async () => {
  await initCrypto();
  tx = signedTx();
});

const expected = [
  {
    chainId: '0x0',
    address: delegate,
    nonce: '0x0',
    yParity: '0x0',
    r: `0x${'11'.repeat(32)}`,
    s: `0x${'22'.repeat(31)}`,
  },
  {
    chainId: '0x2328',
    address: delegate,
    nonce: '0x2',
    yParity: '0x1',
    r: `0x${'33'.repeat(32)}`,
    s: `0x${'44'.repeat(32)}`,
  },
];

/** A quantity as the 32-byte word ethers wants for a signature's r and s. */
const word = (quantity: string) => `0x${quantity.slice(2).padStart(64, '0')}`;
const signature = (r: string, s: string, yParity: string) =>
  Signature.from({ r: word(r), s: word(s), yParity: Number(yParity) === 1 ? 1 : 0 });

describe('authorization lists in JSON-RPC', () => {
  it('gives a committed transaction its authorizations as quantities', () => {
    const json = formatTransaction(tx, tx.getSenderAddress(), {
      blockHash: new Uint8Array(32),
      blockNumber: 1n,
      blockTimestamp: 1n,
      index: 0,
      baseFee: 7n,
    });
    expect(json.authorizationList).toEqual(expected);
  });

  it('gives a pending transaction the same', () => {
    expect(pendingTransactionJson(pooled(tx)).authorizationList).toEqual(expected);
  });

  it('is what ethers rebuilds the signed transaction from', () => {
    const json = pendingTransactionJson(pooled(tx));
    const rebuilt = Transaction.from({
      type: 4,
      chainId: json.chainId,
      nonce: Number(json.nonce),
      to: json.to,
      gasLimit: json.gas,
      maxFeePerGas: json.maxFeePerGas,
      maxPriorityFeePerGas: json.maxPriorityFeePerGas,
      value: json.value,
      data: json.input,
      authorizationList: json.authorizationList!.map((item) => ({
        chainId: BigInt(item.chainId),
        address: item.address,
        nonce: BigInt(item.nonce),
        signature: signature(item.r, item.s, item.yParity),
      })),
      signature: signature(json.r, json.s, json.yParity!),
    });
    expect(rebuilt.hash).toBe(bytesToHex(tx.hash()));
    expect(hexToBytes(rebuilt.serialized as `0x${string}`)).toEqual(tx.serialize());
  });
});
