import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Wallet, formatEther, getAddress, parseEther } from 'ethers';
import { withChecksummedAddresses } from '../../src/cli/json-conventions.js';
import { EthClient, type Hex, type Receipt } from '../../src/client/eth-client.js';
import { DEV_ADDRESSES, DEV_PRIVATE_KEYS } from '../../src/daemon/chain/genesis.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

type RpcJson = Record<string, unknown>;

const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;
const VALUE = parseEther('1.25');

/** Signs a legacy transfer offline, so nothing on the ethers side reads the node's block format. */
async function signTransfer(to: string, nonce: number, key = DEV_PRIVATE_KEYS[0]): Promise<Hex> {
  const signer = new Wallet(key);
  return (await signer.signTransaction({
    type: 0,
    chainId: 9000,
    nonce,
    to,
    value: VALUE,
    gasLimit: 21_000,
    gasPrice: 2_000_000_000,
  })) as Hex;
}

async function waitForReceipt(eth: EthClient, hash: Hex): Promise<Receipt> {
  let receipt: Receipt | null = null;
  await waitFor(
    async () => (receipt = await eth.getTransactionReceipt(hash)) !== null,
    20_000,
    `receipt of ${hash}`,
  );
  return receipt as unknown as Receipt;
}

describe('chain CLI commands', () => {
  let daemon: TestDaemon;
  let eth: EthClient;
  const recipient = Wallet.createRandom().address;
  let txHash: Hex;
  let receipt: Receipt;

  const cli = (...args: string[]) => runCli([...args, '--datadir', daemon.dataDir]);
  const cliJson = <T>(...args: string[]) => runCliJson<T>([...args, '--datadir', daemon.dataDir]);

  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0']);
    eth = new EthClient(daemon.rpc);
    const nonce = await eth.getTransactionCount(DEV_ADDRESSES[0] as Hex);
    txHash = await eth.sendRawTransaction(await signTransfer(recipient, nonce));
    receipt = await waitForReceipt(eth, txHash);
  });
  afterAll(() => daemon?.stop());

  describe('block get', () => {
    it('prints the latest block as eth_getBlockByNumber returns it', async () => {
      const block = await cliJson<RpcJson>('block', 'get');
      const head = await eth.blockNumber();
      expect(block.number).toBe(`0x${head.toString(16)}`);
      expect(block).toMatchObject({ difficulty: null, nonce: null, totalDifficulty: null });
      expect(await daemon.rpc.call('eth_getBlockByNumber', ['latest', false])).toEqual(block);
    });

    it('finds the block of the transfer by decimal number, hex number and hash', async () => {
      const byDecimal = await cliJson<RpcJson>('block', 'get', String(receipt.blockNumber));
      expect(byDecimal.hash).toBe(receipt.blockHash);
      expect(byDecimal.transactions).toEqual([txHash]);
      const byHex = await cliJson<RpcJson>('block', 'get', `0x${receipt.blockNumber.toString(16)}`);
      const byHash = await cliJson<RpcJson>('block', 'get', receipt.blockHash);
      expect(byHex).toEqual(byDecimal);
      expect(byHash).toEqual(byDecimal);
    });

    it('includes full transactions with --full', async () => {
      const block = await cliJson<{ transactions: RpcJson[] }>(
        'block',
        'get',
        receipt.blockHash,
        '--full',
      );
      expect(block.transactions).toHaveLength(1);
      expect(block.transactions[0]).toMatchObject({
        hash: txHash,
        from: getAddress(DEV_ADDRESSES[0]),
        to: recipient,
        value: `0x${VALUE.toString(16)}`,
      });
    });

    it('prints aligned key/value lines for people', async () => {
      const result = await cli('block', 'get', String(receipt.blockNumber));
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^number {8}${receipt.blockNumber}$`, 'm'));
      expect(result.stdout).toMatch(new RegExp(`^hash {10}${receipt.blockHash}$`, 'm'));
      expect(result.stdout).toMatch(/^transactions {2}1$/m);
      expect(result.stdout).toContain(`  ${txHash}`);
    });

    it('fails with exit 1 for a block beyond the head', async () => {
      const result = await cli('block', 'get', '999999');
      expect(result.code).toBe(1);
      expect(result.message).toContain('block 999999 not found');
      const byHash = await cli('block', 'get', UNKNOWN_HASH);
      expect(byHash.code).toBe(1);
      expect(byHash.message).toContain(`block ${UNKNOWN_HASH} not found`);
    });

    it('rejects a malformed block before calling the node (exit 2)', async () => {
      const bad = ['nope', '0xzz', '1.5', `0x${'1'.repeat(63)}`];
      const results = await Promise.all(bad.map((text) => cli('block', 'get', text)));
      results.forEach((result, index) => {
        expect(result.code).toBe(2);
        expect(result.message).toContain(`invalid block "${bad[index]}"`);
      });
    });
  });

  describe('tx get and tx receipt', () => {
    it('prints the transaction as eth_getTransactionByHash returns it', async () => {
      const tx = await cliJson<RpcJson>('tx', 'get', txHash);
      expect(tx).toMatchObject({
        hash: txHash,
        blockHash: receipt.blockHash,
        blockNumber: `0x${receipt.blockNumber.toString(16)}`,
        from: getAddress(DEV_ADDRESSES[0]),
        to: recipient,
        value: `0x${VALUE.toString(16)}`,
        gas: '0x5208',
        type: '0x0',
      });
      expect(
        withChecksummedAddresses(await daemon.rpc.call('eth_getTransactionByHash', [txHash])),
      ).toEqual(tx);
    });

    it('accepts an upper-case hash', async () => {
      const tx = await cliJson<RpcJson>('tx', 'get', `0x${txHash.slice(2).toUpperCase()}`);
      expect(tx.hash).toBe(txHash);
    });

    it('prints the receipt as eth_getTransactionReceipt returns it', async () => {
      const json = await cliJson<RpcJson>('tx', 'receipt', txHash);
      expect(json).toMatchObject({
        transactionHash: txHash,
        status: '0x1',
        gasUsed: '0x5208',
        contractAddress: null,
        logs: [],
      });
      expect(
        withChecksummedAddresses(await daemon.rpc.call('eth_getTransactionReceipt', [txHash])),
      ).toEqual(json);
    });

    it('prints the receipt status for people', async () => {
      const result = await cli('tx', 'receipt', txHash);
      expect(result.code).toBe(0);
      const status = /^(status +)success \(1\)$/m.exec(result.stdout);
      const gasUsed = /^(gas used +)21000$/m.exec(result.stdout);
      expect(status).not.toBeNull();
      expect(gasUsed).not.toBeNull();
      expect(status?.[1].length).toBe(gasUsed?.[1].length);
    });

    it('fails with exit 1 for an unknown transaction', async () => {
      const results = await Promise.all([
        cli('tx', 'get', UNKNOWN_HASH),
        cli('tx', 'receipt', UNKNOWN_HASH),
      ]);
      for (const result of results) {
        expect(result.code).toBe(1);
        expect(result.message).toContain(`transaction ${UNKNOWN_HASH} not found`);
      }
    });

    it('shows a transaction still in the pool as pending, without a receipt', async () => {
      const sender = DEV_ADDRESSES[1] as Hex;
      // A nonce gap keeps the transaction queued in the pool, so it stays pending for the test.
      const gapNonce = (await eth.getTransactionCount(sender, 'pending')) + 1;
      const pendingHash = await eth.sendRawTransaction(
        await signTransfer(recipient, gapNonce, DEV_PRIVATE_KEYS[1]),
      );
      const tx = await cliJson<RpcJson>('tx', 'get', pendingHash);
      expect(tx).toMatchObject({ hash: pendingHash, blockHash: null, blockNumber: null });
      const human = await cli('tx', 'get', pendingHash);
      expect(human.stdout).toMatch(/^block +pending$/m);
      const noReceipt = await cli('tx', 'receipt', pendingHash);
      expect(noReceipt.code).toBe(1);
      expect(noReceipt.message).toContain(`transaction ${pendingHash} is pending`);
    });

    it('rejects a malformed hash (exit 2)', async () => {
      const result = await cli('tx', 'get', '0x1234');
      expect(result.code).toBe(2);
      expect(result.message).toContain('invalid transaction hash "0x1234"');
    });
  });

  describe('account balance', () => {
    it('prints wei and ether at the latest block and at an earlier one', async () => {
      const latest = await cliJson<RpcJson>('account', 'balance', recipient.toLowerCase());
      expect(latest).toEqual({
        address: recipient,
        block: 'latest',
        wei: `0x${VALUE.toString(16)}`,
        ether: formatEther(VALUE),
      });
      const genesis = await cliJson<RpcJson>('account', 'balance', recipient, '--block', '0');
      expect(genesis).toEqual({ address: recipient, block: '0x0', wei: '0x0', ether: '0.0' });
    });

    it('prints aligned lines for people', async () => {
      const result = await cli('account', 'balance', recipient);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `address  ${recipient}\nblock    latest\nbalance  1.25 ETH (${VALUE} wei)\n`,
      );
    });

    it('rejects a bad address or checksum and a bad --block (exit 2)', async () => {
      const short = await cli('account', 'balance', '0x1234');
      expect(short.code).toBe(2);
      expect(short.message).toContain('invalid address "0x1234"');
      const badChecksum = recipient.replace(/(?<=^0x.*)[a-fA-F]/, (letter) =>
        letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase(),
      );
      const checksum = await cli('account', 'balance', badChecksum);
      expect(checksum.code).toBe(2);
      expect(checksum.message).toContain('checksum');
      const block = await cli('account', 'balance', recipient, '--block', 'yesterday');
      expect(block.code).toBe(2);
      expect(block.message).toContain('invalid block "yesterday"');
    });
  });
});

describe('EthClient with --json-rpc.ethereum-compat', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon(['--block-time', '0', '--json-rpc.ethereum-compat']);
  });
  afterAll(() => daemon?.stop());

  it('parses the proof-of-work fields geth fills in after the merge', async () => {
    const eth = new EthClient(daemon.rpc);
    const block = await eth.getBlock(0n, false);
    expect(block).toMatchObject({ number: 0n, difficulty: 0n, totalDifficulty: 0n });
    expect(block?.nonce).toMatch(/^0x[0-9a-f]{16}$/);
    expect(await eth.chainId()).toBe(9000n);
    expect(await eth.getBlock(10n ** 9n)).toBeNull();
  });
});
