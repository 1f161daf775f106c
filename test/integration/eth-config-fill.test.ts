/**
 * eth_config, eth_baseFee, eth_capabilities and eth_fillTransaction against a real daemon: the fork
 * configuration is this chain's (its genesis, its chain id), the capabilities follow the head,
 * and a filled transaction, signed elsewhere as it is, is accepted and mined.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { crc32 } from 'node:zlib';
import { Interface, Transaction, Wallet, getBytes, keccak256 } from 'ethers';
import { deployFixtureRaw, loadContract } from '../helpers/contracts.js';
import { DEV_CHAIN_ID, devWallet, sendAndWait } from '../helpers/dev-chain.js';
import { rpcError } from '../helpers/rpc-errors.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

interface Filled {
  raw: string;
  tx: Record<string, string>;
}

const fixtureInterface = new Interface(loadContract('Fixture').abi);

describe('eth_config, eth_baseFee, eth_capabilities and eth_fillTransaction', () => {
  let daemon: TestDaemon;
  let fixture: string;
  const wallet = devWallet(5);
  const recipient = Wallet.createRandom().address;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0', '--minimum-gas-prices', '3gwei']);
    fixture = (await deployFixtureRaw(daemon.rpc, 'Fixture', wallet, 0)).contractAddress as string;
  });
  afterAll(() => daemon?.stop());

  const fill = (request: Record<string, unknown>): Promise<Filled> =>
    daemon.rpc.call<Filled>('eth_fillTransaction', [request]);

  it('eth_config describes one fork from this chain’s genesis on', async () => {
    const genesis = await daemon.rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false]);
    const config = await daemon.rpc.call<{
      current: Record<string, unknown> & { precompiles: Record<string, string> };
      next: unknown;
      last: unknown;
    }>('eth_config', []);
    const forkId = `0x${crc32(getBytes(genesis.hash)).toString(16).padStart(8, '0')}`;
    expect(config.next).toBeNull();
    expect(config.last).toBeNull();
    expect(config.current).toMatchObject({
      activationTime: 0,
      chainId: `0x${DEV_CHAIN_ID.toString(16)}`,
      forkId,
      blobSchedule: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
      systemContracts: {},
    });
    expect(Object.keys(config.current.precompiles)).toHaveLength(17);
    expect(config.current.precompiles.ECREC).toBe(`0x${'00'.repeat(19)}01`);
    expect(config.current.precompiles.BLS12_MAP_FP2_TO_G2).toBe(`0x${'00'.repeat(19)}11`);
    expect(config.current.precompiles.P256VERIFY).toBeUndefined();
  });

  it('eth_baseFee answers the next block’s base fee, as eth_feeHistory’s last entry', async () => {
    const baseFee = await daemon.rpc.call<string>('eth_baseFee', []);
    const history = await daemon.rpc.call<{ baseFeePerGas: string[] }>('eth_feeHistory', [
      '0x1',
      'latest',
    ]);
    expect(baseFee).toBe(history.baseFeePerGas[1]);
    // The daemon's floor (--minimum-gas-prices 3gwei) holds the base fee of an idle chain.
    expect(BigInt(baseFee)).toBe(3_000_000_000n);
  });

  it('eth_capabilities names the head and keeps everything from the genesis', async () => {
    const head = await daemon.rpc.call<{ number: string; hash: string }>('eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    const capabilities = await daemon.rpc.call<Record<string, unknown>>('eth_capabilities', []);
    const kept = { disabled: false, oldestBlock: '0x0' };
    expect(capabilities).toEqual({
      head: { number: head.number, hash: head.hash },
      state: kept,
      tx: kept,
      logs: kept,
      receipts: kept,
      blocks: kept,
      stateproofs: kept,
    });
  });

  it('fills nonce, estimated gas and fees; the transaction signed as it is gets mined', async () => {
    const filled = await fill({ from: wallet.address, to: recipient, value: '0x5' });
    expect(filled.tx).toMatchObject({
      type: '0x2',
      from: wallet.address.toLowerCase(),
      to: recipient.toLowerCase(),
      nonce: '0x1',
      gas: '0x5208',
      value: '0x5',
      chainId: `0x${DEV_CHAIN_ID.toString(16)}`,
      v: '0x0',
      r: '0x0',
      s: '0x0',
    });
    expect(filled.tx.hash).toBe(keccak256(filled.raw));
    expect(BigInt(filled.tx.maxFeePerGas)).toBeGreaterThanOrEqual(
      BigInt(filled.tx.maxPriorityFeePerGas),
    );
    const unsigned = Transaction.from(filled.raw);
    unsigned.signature = null;
    const receipt = await sendAndWait(daemon.rpc, await wallet.signTransaction(unsigned));
    expect(receipt.status).toBe('0x1');
    expect(await daemon.rpc.call('eth_getBalance', [recipient, 'latest'])).toBe('0x5');
  });

  it('keeps the fields given, and needs no key of the sender', async () => {
    const stranger = Wallet.createRandom().address;
    const filled = await fill({ from: stranger, to: fixture, gas: '0x30000', nonce: '0x7' });
    expect(filled.tx).toMatchObject({ gas: '0x30000', nonce: '0x7', from: stranger.toLowerCase() });
  });

  it('makes a legacy transaction for a gas price, an EIP-2930 one with an access list', async () => {
    const legacy = await fill({ from: wallet.address, to: recipient, gasPrice: '0x12a05f200' });
    expect(legacy.tx).toMatchObject({ type: '0x0', gasPrice: '0x12a05f200' });
    const accessList = [{ address: fixture.toLowerCase(), storageKeys: [] }];
    const withList = await fill({
      from: wallet.address,
      to: recipient,
      gasPrice: '0x12a05f200',
      accessList,
    });
    expect(withList.tx).toMatchObject({ type: '0x1', accessList });
  });

  it('answers a reverting call’s estimate as eth_estimateGas does, and bad fields by name', async () => {
    const revert = await rpcError(
      fill({
        from: wallet.address,
        to: fixture,
        data: fixtureInterface.encodeFunctionData('fail'),
      }),
    );
    expect(revert.code).toBe(3);
    const fees = await rpcError(
      fill({ from: wallet.address, to: recipient, gasPrice: '0x1', maxFeePerGas: '0x2' }),
    );
    expect(fees.code).toBe(-32602);
    expect(fees.message).toMatch(/gasPrice/);
    const noSender = await rpcError(fill({ to: recipient }));
    expect(noSender.message).toMatch(/missing field from/);
  });
});
