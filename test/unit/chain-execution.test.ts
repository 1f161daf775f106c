import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  Address,
  bytesToBigInt,
  bytesToHex,
  computeVersionedHash,
  hexToBytes,
} from '@ethereumjs/util';
import { Chain } from '../../src/daemon/chain/chain.js';
import { devGenesis } from '../../src/daemon/chain/genesis.js';
import { ExecutionRevertedError } from '../../src/shared/errors.js';
import {
  REGISTER_RUNTIME,
  STORE_TOPIC,
  deployCode,
  devAddress,
  pooled,
  signTx,
  storeContractRuntime,
  tempDataDir,
  word,
} from './chain-fixtures.js';

const GWEI = 1_000_000_000n;
const coinbase = new Address(hexToBytes(`0x${'c0'.repeat(20)}`));

describe('chain execution', () => {
  let chain: Chain;
  let cleanup: () => void;

  beforeEach(async () => {
    const tmp = tempDataDir();
    cleanup = tmp.cleanup;
    chain = await Chain.open({ dataDir: tmp.dir, genesis: devGenesis(), coinbase });
  });

  afterEach(async () => {
    await chain.close();
    cleanup();
  });

  async function deployStore(nonce: bigint): Promise<Address> {
    const tx = signTx(chain.common, 0, {
      nonce,
      data: deployCode(storeContractRuntime()),
      gasLimit: 200_000n,
    });
    const committed = await chain.buildAndCommitBlock([pooled(tx)], 1n);
    expect(committed.receipts[0].status).toBe(1);
    return committed.receipts[0].contractAddress!;
  }

  it('transfers value, burns the base fee and pays the tip to the coinbase', async () => {
    const baseFee = chain.nextBaseFee();
    const before = await chain.getBalance(devAddress(0));
    const tx = signTx(chain.common, 0, {
      nonce: 0n,
      to: devAddress(1),
      value: 5n,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
    });
    const committed = await chain.buildAndCommitBlock([pooled(tx)], 100n);
    const [receipt] = committed.receipts;
    expect(committed.block.number).toBe(1n);
    expect(receipt.status).toBe(1);
    expect(receipt.gasUsed).toBe(21_000n);
    expect(receipt.cumulativeGasUsed).toBe(21_000n);
    expect(receipt.effectiveGasPrice).toBe(baseFee + 2n * GWEI);
    expect(committed.results[0].code).toBe(0);
    expect(committed.results[0].ethereumTx).toEqual({
      sender: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      ethereumTxHash: bytesToHex(tx.hash()),
      txIndex: '0',
      amount: '5',
      txGasUsed: '21000',
    });
    expect(await chain.getBalance(devAddress(0))).toBe(
      before - 5n - 21_000n * (baseFee + 2n * GWEI),
    );
    expect(await chain.getBalance(coinbase)).toBe(21_000n * 2n * GWEI);
    expect(await chain.getNonce(devAddress(0))).toBe(1n);
    const found = chain.getTransaction(tx.hash());
    expect(found?.blockNumber).toBe(1n);
    expect(found?.sender.equals(devAddress(0))).toBe(true);
    expect(chain.getBlockByHash(committed.block.hash)?.number).toBe(1n);
    expect(committed.block.hash).toEqual(committed.block.block.header.hash());
  });

  it('answers cached head balances only for the head, and forgets them at the next block', async () => {
    const recipient = devAddress(1);
    const hex = recipient.toString().toUpperCase().replace('0X', '0x');
    const before = await chain.getBalance(recipient);
    expect(chain.cachedHeadBalance(hex, chain.head().number)).toBe(before);
    const tx = signTx(chain.common, 0, { nonce: 0n, to: recipient, value: 7n });
    await chain.buildAndCommitBlock([pooled(tx)], 1n);
    expect(chain.cachedHeadBalance(hex, chain.head().number)).toBeUndefined();
    expect(chain.cachedHeadBalance(hex, chain.head().number - 1n)).toBeUndefined();
    expect(await chain.getBalance(recipient)).toBe(before + 7n);
    expect(chain.cachedHeadBalance(hex, chain.head().number)).toBe(before + 7n);
  });

  it('deploys a contract, calls it, records receipts and logs', async () => {
    const contract = await deployStore(0n);
    expect(bytesToHex(await chain.getCode(contract, 1n))).toBe(bytesToHex(storeContractRuntime()));

    const legacy = signTx(chain.common, 0, {
      nonce: 1n,
      to: contract,
      data: word(42n),
      gasLimit: 100_000n,
      gasPrice: 5n * GWEI,
    });
    const transfer = signTx(chain.common, 1, { nonce: 0n, to: devAddress(2), value: 1n });
    const committed = await chain.buildAndCommitBlock([pooled(legacy), pooled(transfer)], 2n);
    expect(committed.receipts.map((r) => r.status)).toEqual([1, 1]);
    const [callReceipt, transferReceipt] = committed.receipts;
    expect(callReceipt.type).toBe(0);
    expect(callReceipt.logs).toHaveLength(1);
    expect(bytesToHex(callReceipt.logs[0].topics[0])).toBe(STORE_TOPIC);
    expect(bytesToBigInt(callReceipt.logs[0].data)).toBe(42n);
    expect(callReceipt.logs[0].logIndex).toBe(0);
    expect(transferReceipt.cumulativeGasUsed).toBe(callReceipt.gasUsed + 21_000n);
    expect(chain.getReceipt(legacy.hash())?.logs[0].address.equals(contract)).toBe(true);
    expect(chain.getBlockReceipts(2n)).toHaveLength(2);
    expect(committed.block.block.header.gasUsed).toBe(transferReceipt.cumulativeGasUsed);

    expect(bytesToBigInt(await chain.getStorageAt(contract, new Uint8Array([0]), 2n))).toBe(42n);
    const result = await chain.call({ to: contract, data: word(7n) }, 2n);
    expect(bytesToBigInt(result.returnData)).toBe(7n);
    expect(result.error).toBeUndefined();
    expect(bytesToBigInt(await chain.getStorageAt(contract, new Uint8Array([0]), 2n))).toBe(42n);
    const estimate = await chain.estimateGas(
      { from: devAddress(3), to: contract, data: word(9n) },
      2n,
    );
    expect(estimate).toBeGreaterThan(21_000n);
    expect(estimate).toBeLessThan(100_000n);
  });

  it('reports reverts from calls with the revert data and reason', async () => {
    const contract = await deployStore(0n);
    const error = await chain.call({ to: contract }, 1n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutionRevertedError);
    expect((error as ExecutionRevertedError).message).toBe('execution reverted: nope');
    expect((error as ExecutionRevertedError).data).toMatch(/^0x08c379a0/);
    await expect(chain.estimateGas({ to: contract }, 1n)).rejects.toBeInstanceOf(
      ExecutionRevertedError,
    );

    const reverting = signTx(chain.common, 0, { nonce: 1n, to: contract, gasLimit: 100_000n });
    const committed = await chain.buildAndCommitBlock([pooled(reverting)], 2n);
    expect(committed.receipts[0].status).toBe(0);
    expect(committed.results[0].code).toBe(1);
    expect(committed.results[0].ethereumTx.ethereumTxFailed).toBe('execution reverted');
  });

  it("words an invalid jump in geth's words, in calls and in failed transactions' events", async () => {
    // PUSH1 0, JUMP: to the PUSH1, which is no JUMPDEST.
    const tx = signTx(chain.common, 0, {
      nonce: 0n,
      data: deployCode(hexToBytes('0x600056')),
      gasLimit: 200_000n,
    });
    const contract = (await chain.buildAndCommitBlock([pooled(tx)], 1n)).receipts[0]
      .contractAddress!;
    expect((await chain.call({ to: contract }, 1n)).error).toBe('invalid jump destination');
    const jumping = signTx(chain.common, 0, { nonce: 1n, to: contract, gasLimit: 100_000n });
    const committed = await chain.buildAndCommitBlock([pooled(jumping)], 2n);
    expect(committed.results[0].ethereumTx.ethereumTxFailed).toBe('invalid jump destination');
  });

  it('rejects transactions that cannot execute and keeps producing', async () => {
    const good = signTx(chain.common, 0, { nonce: 0n, to: devAddress(1), value: 1n });
    const stale = signTx(chain.common, 1, { nonce: 5n, to: devAddress(1), value: 1n });
    const committed = await chain.buildAndCommitBlock([pooled(good), pooled(stale)], 1n);
    expect(committed.results).toHaveLength(1);
    expect(committed.rejected).toEqual([
      { hashHex: bytesToHex(stale.hash()), reason: 'nonce too high' },
    ]);
    const replay = await chain.buildAndCommitBlock([pooled(good)], 2n);
    expect(replay.rejected[0].reason).toBe('nonce too low');
    expect(replay.block.number).toBe(2n);
  });

  it('runs each transaction of a block on the state the earlier ones left, priced from its own start', async () => {
    // Block state is written to the tries once per block, so this holds the per-transaction
    // parts to what separate blocks give: the second write to a slot sees the first one's value
    // as its EIP-2200 original (a reset, 2 900 gas, not a dirty write at 100), and a failed
    // transaction's changes are dropped while the others' stay.
    const deploy = signTx(chain.common, 0, {
      nonce: 0n,
      data: deployCode(REGISTER_RUNTIME),
      gasLimit: 200_000n,
    });
    const deployed = await chain.buildAndCommitBlock([pooled(deploy)], 1n);
    const register = deployed.receipts[0].contractAddress!;
    const write = (from: number, nonce: bigint, value: bigint) =>
      signTx(chain.common, from, { nonce, to: register, data: word(value), gasLimit: 100_000n });
    const together = await chain.buildAndCommitBlock(
      [pooled(write(1, 0n, 1n)), pooled(write(2, 0n, 2n)), pooled(write(3, 0n, 3n))],
      2n,
    );
    const apart = [
      await chain.buildAndCommitBlock([pooled(write(1, 1n, 4n))], 3n),
      await chain.buildAndCommitBlock([pooled(write(2, 1n, 5n))], 4n),
    ];
    const gas = together.receipts.map((receipt) => receipt.gasUsed);
    expect(gas[1]).toBe(gas[2]);
    expect(gas[1]).toBe(apart[1].receipts[0].gasUsed);
    expect(gas[0]).toBeGreaterThan(gas[1]);
    const slot = async (block: bigint) =>
      bytesToBigInt((await chain.call({ to: register }, block)).returnData);
    expect(await slot(2n)).toBe(3n);
    expect(await slot(4n)).toBe(5n);

    const failing = signTx(chain.common, 4, {
      nonce: 0n,
      to: register,
      data: word(9n),
      gasLimit: 25_000n,
    });
    const mixed = await chain.buildAndCommitBlock(
      [pooled(write(1, 2n, 6n)), pooled(failing), pooled(write(2, 2n, 7n))],
      5n,
    );
    expect(mixed.receipts.map((receipt) => receipt.status)).toEqual([1, 0, 1]);
    expect(await slot(5n)).toBe(7n);
    expect(await chain.getNonce(devAddress(4))).toBe(1n);
  });

  it('turns calls to the KZG point-evaluation precompile into failed transactions', async () => {
    const kzg = new Address(hexToBytes('0x000000000000000000000000000000000000000a'));
    const commitment = new Uint8Array(48);
    const input = new Uint8Array(192);
    input.set(hexToBytes(computeVersionedHash(bytesToHex(commitment), 1)), 0);
    input.set(commitment, 96);
    const valueOnly = signTx(chain.common, 0, {
      nonce: 0n,
      to: kzg,
      value: 1n,
      gasLimit: 100_000n,
    });
    const withProof = signTx(chain.common, 0, {
      nonce: 1n,
      to: kzg,
      data: input,
      gasLimit: 100_000n,
    });
    const committed = await chain.buildAndCommitBlock([pooled(valueOnly), pooled(withProof)], 1n);
    expect(committed.rejected).toEqual([]);
    expect(committed.receipts.map((r) => r.status)).toEqual([0, 0]);
    const next = await chain.buildAndCommitBlock(
      [pooled(signTx(chain.common, 0, { nonce: 2n, to: devAddress(1), value: 1n }))],
      2n,
    );
    expect(next.receipts[0].status).toBe(1);
  });

  it('raises the base fee after a full block and never lets it fall below the minimum', async () => {
    expect(chain.nextBaseFee()).toBe(GWEI);
    await chain.buildAndCommitBlock([], 1n);
    expect(chain.nextBaseFee()).toBe(GWEI);
    const contract = await deployStore(0n);
    expect(contract).toBeDefined();
    expect(chain.head().block.header.baseFeePerGas).toBe(GWEI);
  });
});
