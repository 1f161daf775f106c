/** Shared helpers of the chain tests: temp data dirs, signed dev transactions, tiny contracts. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, concatBytes, createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { DEV_PRIVATE_KEYS } from '../../src/daemon/chain/genesis.js';
import type { Chain } from '../../src/daemon/chain/chain.js';
import type { PooledTransaction } from '../../src/daemon/txpool/types.js';

export function tempDataDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'node-cli-chain-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const devKey = (i: number): Uint8Array => hexToBytes(DEV_PRIVATE_KEYS[i]);
export const devAddress = (i: number): Address => createAddressFromPrivateKey(devKey(i));

export interface TxFields {
  nonce: bigint;
  to?: Address;
  value?: bigint;
  data?: Uint8Array;
  gasLimit?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  gasPrice?: bigint;
}

/** Signs a type-2 transaction (or type 0 when `gasPrice` is given) with dev key `from`. */
export function signTx(common: Common, from: number, fields: TxFields): TypedTransaction {
  const base = {
    nonce: fields.nonce,
    to: fields.to,
    value: fields.value ?? 0n,
    data: fields.data ?? new Uint8Array(),
    gasLimit: fields.gasLimit ?? 21_000n,
  };
  const tx =
    fields.gasPrice !== undefined
      ? createLegacyTx({ ...base, gasPrice: fields.gasPrice }, { common })
      : createFeeMarket1559Tx(
          {
            ...base,
            chainId: common.chainId(),
            maxFeePerGas: fields.maxFeePerGas ?? 10_000_000_000n,
            maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? 1_000_000_000n,
          },
          { common },
        );
  return tx.sign(devKey(from));
}

export function pooled(tx: TypedTransaction): PooledTransaction {
  const sender = tx.getSenderAddress();
  const hash = tx.hash();
  return {
    tx,
    hash,
    hashHex: bytesToHex(hash),
    sender,
    senderHex: sender.toString(),
    nonce: tx.nonce,
    addedAt: Date.now(),
  };
}

const TOPIC = hexToBytes(`0x${'aa'.repeat(32)}`);
export const STORE_TOPIC = bytesToHex(TOPIC);

/**
 * Runtime of the test contract. Empty calldata reverts with `Error("nope")`; otherwise it stores
 * the first calldata word in slot 0, logs it under {@link STORE_TOPIC} and returns it.
 */
export function storeContractRuntime(): Uint8Array {
  const head = (dest: number) => hexToBytes(`0x361560${dest.toString(16).padStart(2, '0')}57`);
  const body = concatBytes(
    hexToBytes('0x600035806000556000527f'),
    TOPIC,
    hexToBytes('0x60206000a160206000f3'),
  );
  // Error("nope"): selector, offset 0x20, length 4, then the text, reverted as 100 bytes.
  const revert = hexToBytes(
    '0x5b6308c379a060e01b60005260206004526004602452636e6f706560e01b60445260646000fd',
  );
  const dest = 5 + body.length;
  return concatBytes(head(dest), body, revert);
}

/** Deploys the {@link storeContractRuntime} contract from dev account 0 in a block of its own. */
export async function deployStoreContract(
  chain: Chain,
  nonce: bigint,
  timestamp: bigint,
): Promise<Address> {
  const deploy = signTx(chain.common, 0, {
    nonce,
    data: deployCode(storeContractRuntime()),
    gasLimit: 200_000n,
  });
  return (await chain.buildAndCommitBlock([pooled(deploy)], timestamp)).receipts[0]
    .contractAddress!;
}

/** Init code that deploys `runtime` unchanged. */
export function deployCode(runtime: Uint8Array): Uint8Array {
  const length = runtime.length.toString(16).padStart(2, '0');
  return concatBytes(hexToBytes(`0x60${length}80600b6000396000f3`), runtime);
}

/**
 * Runtime of a one-slot register: with calldata it stores the first word in slot 0; without, it
 * returns slot 0.
 */
export const REGISTER_RUNTIME = hexToBytes('0x36600f5760005460005260206000f35b60003560005500');

export const word = (n: bigint): Uint8Array => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
