/**
 * ethers v6 against a real daemon in Ethereum-compatible block mode on a fast chain: contract
 * deployment, views, ether and token transfers, blocks, receipts of successful and reverted
 * transactions, logs, decoded reverts, and EIP-1186 proofs checked by an independent verifier.
 *
 * Transactions are awaited by polling for their receipt before calling ethers' `wait()`: with
 * `--block-time 0` the block often lands before ethers' block poller takes its first reading,
 * and as no further block follows, `wait()` alone would never see it. The provider's 250 ms
 * request cache is off for the same reason: it would hand a second transaction the nonce the
 * first one read.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type Contract,
  ContractFactory,
  JsonRpcProvider,
  Wallet,
  keccak256,
  parseEther,
  toBeHex,
  toQuantity,
  zeroPadValue,
  type BaseContract,
  type ContractTransactionReceipt,
  type EthersError,
} from 'ethers';
import { loadContract } from '../helpers/contracts.js';
import { DEV_CHAIN_ID, devWallet } from '../helpers/dev-chain.js';
import {
  EMPTY_TRIE_ROOT,
  verifyAccountProof,
  verifyStorageProof,
} from '../helpers/merkle-proof.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

interface ProofResult {
  address: string;
  accountProof: string[];
  balance: string;
  codeHash: string;
  nonce: string;
  storageHash: string;
  storageProof: Array<{ key: string; value: string; proof: string[] }>;
}

const TOKEN_SUPPLY = 1_000_000n * 10n ** 18n;
const SLOT_0 = zeroPadValue('0x00', 32);

describe('ethers v6 against the daemon (--json-rpc.ethereum-compat, --block-time 0)', () => {
  let daemon: TestDaemon;
  let provider: JsonRpcProvider;
  let deployer: Wallet;
  let spender: Wallet;
  let token: Contract;
  let fixture: Contract;
  let fixtureAddress: string;

  /** Waits until the transaction has a receipt, then lets ethers check it (status 0 rejects). */
  const confirmed = async <R>(response: { hash: string; wait(): Promise<R> }): Promise<R> => {
    await waitFor(
      async () => (await provider.getTransactionReceipt(response.hash)) !== null,
      10_000,
      `the receipt of ${response.hash}`,
    );
    return response.wait();
  };
  const deploy = async (name: 'Token' | 'Fixture', ...args: unknown[]): Promise<Contract> => {
    const artifact = loadContract(name);
    const factory = new ContractFactory(artifact.abi, artifact.bytecode, deployer);
    const contract: BaseContract = await factory.deploy(...args);
    await confirmed(contract.deploymentTransaction()!);
    return contract as Contract;
  };
  const mined = async (pending: Promise<{ hash: string; wait(): Promise<unknown> }>) =>
    (await confirmed(await pending)) as ContractTransactionReceipt;
  const getProof = (address: string, slots: string[], blockNumber: number) =>
    provider.send('eth_getProof', [
      address,
      slots,
      toQuantity(blockNumber),
    ]) as Promise<ProofResult>;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--json-rpc.ethereum-compat', '--block-time', '0']);
    provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      pollingInterval: 50,
      cacheTimeout: -1,
    });
    deployer = devWallet(0).connect(provider);
    spender = devWallet(1).connect(provider);
    token = await deploy('Token', TOKEN_SUPPLY);
    fixture = await deploy('Fixture');
    fixtureAddress = await fixture.getAddress();
  });
  afterAll(async () => {
    provider?.destroy();
    await daemon?.stop();
  });

  it('detects the network and reads fee data', async () => {
    expect((await provider.getNetwork()).chainId).toBe(DEV_CHAIN_ID);
    const fees = await provider.getFeeData();
    expect(fees.gasPrice).toBeGreaterThanOrEqual(1_000_000_000n);
    expect(fees.maxFeePerGas).not.toBeNull();
    expect(fees.maxPriorityFeePerGas).not.toBeNull();
  });

  it('deploys the fixtures: their code is the compiled runtime code and views answer', async () => {
    expect(await provider.getCode(await token.getAddress())).toBe(
      loadContract('Token').deployedBytecode,
    );
    expect(await provider.getCode(fixtureAddress)).toBe(loadContract('Fixture').deployedBytecode);
    expect(await token.totalSupply()).toBe(TOKEN_SUPPLY);
    expect(await token.balanceOf(deployer.address)).toBe(TOKEN_SUPPLY);
    expect(await token.symbol()).toBe('FIX');
    expect(await fixture.get()).toBe(0n);
  });

  it('transfers ether: the recipient gets the value, the sender pays value plus gas', async () => {
    const recipient = Wallet.createRandom().address;
    const value = parseEther('1.5');
    const response = await deployer.sendTransaction({ to: recipient, value });
    const receipt = await confirmed(response);
    expect(receipt?.status).toBe(1);
    expect(receipt?.gasUsed).toBe(21_000n);
    const blockNumber = receipt!.blockNumber;
    expect(await provider.getBalance(recipient, blockNumber)).toBe(value);
    expect(await provider.getBalance(recipient, blockNumber - 1)).toBe(0n);
    const before = await provider.getBalance(deployer.address, blockNumber - 1);
    const after = await provider.getBalance(deployer.address, blockNumber);
    expect(before - after).toBe(value + receipt!.gasUsed * receipt!.gasPrice);

    const transaction = await provider.getTransaction(response.hash);
    expect(transaction).toMatchObject({
      hash: response.hash,
      from: deployer.address,
      to: recipient,
      value,
      chainId: DEV_CHAIN_ID,
      type: 2,
      blockNumber,
      blockHash: receipt!.blockHash,
    });
  });

  it('transfers tokens and spends an allowance, with Transfer and Approval events', async () => {
    const recipient = Wallet.createRandom().address;
    const transfer = await mined(token.transfer(recipient, 1_000n));
    expect(transfer.status).toBe(1);
    const [transferLog] = transfer.logs.map((log) => token.interface.parseLog(log));
    expect(transferLog?.name).toBe('Transfer');
    expect(transferLog?.args.toArray()).toEqual([deployer.address, recipient, 1_000n]);
    expect(await token.balanceOf(recipient)).toBe(1_000n);

    const approval = await mined(token.approve(spender.address, 500n));
    expect(token.interface.parseLog(approval.logs[0])?.args.toArray()).toEqual([
      deployer.address,
      spender.address,
      500n,
    ]);
    const asSpender = token.connect(spender) as Contract;
    await mined(asSpender.transferFrom(deployer.address, recipient, 200n));
    expect(await token.allowance(deployer.address, spender.address)).toBe(300n);
    expect(await token.balanceOf(recipient)).toBe(1_200n);
    expect(await token.balanceOf(deployer.address)).toBe(TOKEN_SUPPLY - 1_200n);
  });

  it('reads blocks with transaction hashes and with full transactions', async () => {
    const response = await deployer.sendTransaction({ to: spender.address, value: 1n });
    const receipt = (await confirmed(response))!;
    const light = await provider.getBlock(receipt.blockNumber);
    const full = await provider.getBlock(receipt.blockNumber, true);
    const byHash = await provider.getBlock(receipt.blockHash);
    expect(light?.hash).toBe(receipt.blockHash);
    expect(byHash?.number).toBe(receipt.blockNumber);
    expect(light?.transactions).toContain(response.hash);
    expect(light?.transactions.every((hash) => /^0x[0-9a-f]{64}$/.test(hash))).toBe(true);
    const prefetched = full?.prefetchedTransactions.find((tx) => tx.hash === response.hash);
    expect(prefetched).toMatchObject({
      from: deployer.address,
      to: spender.address,
      value: 1n,
      blockHash: receipt.blockHash,
      index: receipt.index,
    });
    const parent = await provider.getBlock(receipt.blockNumber - 1);
    expect(light?.parentHash).toBe(parent?.hash);
    expect(light?.timestamp).toBeGreaterThanOrEqual(parent!.timestamp);
    expect(light?.difficulty).toBe(0n);
    expect(light?.gasUsed).toBeGreaterThanOrEqual(21_000n);
  });

  it('includes a reverting transaction sent with a fixed gas limit, with receipt status 0', async () => {
    const nonce = await provider.getTransactionCount(deployer.address);
    const response = await fixture.fail.send({ gasLimit: 100_000n });
    const failure = (await confirmed(response).then(
      () => undefined,
      (error: unknown) => error,
    )) as EthersError & { receipt?: { status: number } };
    expect(failure?.code).toBe('CALL_EXCEPTION');
    const receipt = await provider.getTransactionReceipt(response.hash);
    expect(receipt?.status).toBe(0);
    expect(receipt?.logs).toEqual([]);
    expect(receipt?.gasUsed).toBeGreaterThan(21_000n);
    expect(receipt?.gasUsed).toBeLessThanOrEqual(100_000n);
    expect(await provider.getTransactionCount(deployer.address)).toBe(nonce + 1);
    const block = await provider.getBlock(receipt!.blockNumber);
    expect(block?.transactions).toContain(response.hash);

    const custom = await fixture.failCustom.send(9n, { gasLimit: 100_000n });
    await expect(confirmed(custom)).rejects.toMatchObject({ code: 'CALL_EXCEPTION' });
    expect((await provider.getTransactionReceipt(custom.hash))?.status).toBe(0);
  });

  it('decodes eth_call reverts: a reason string and a custom error', async () => {
    await expect(fixture.fail.staticCall()).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'Fixture: always fails',
      revert: { name: 'Error', args: ['Fixture: always fails'] },
    });
    const custom = (await fixture.failCustom.staticCall(7n).then(
      () => undefined,
      (error: unknown) => error,
    )) as EthersError & { revert?: { name: string; args: unknown[] }; data?: string };
    expect(custom?.code).toBe('CALL_EXCEPTION');
    expect(custom?.revert?.name).toBe('Refused');
    expect(custom?.revert?.args).toEqual([7n, deployer.address]);
    expect(fixture.interface.parseError(custom!.data!)?.name).toBe('Refused');
    await expect(fixture.fail.estimateGas()).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'Fixture: always fails',
    });
  });

  it('stores a value, emits an indexed event and finds it with getLogs by topic', async () => {
    const receipt = await mined(fixture.set(42n));
    expect(await fixture.get()).toBe(42n);
    const valueSet = fixture.interface.getEvent('ValueSet')!.topicHash;
    const byWho = await provider.getLogs({
      address: fixtureAddress,
      topics: [valueSet, zeroPadValue(deployer.address, 32)],
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(byWho).toHaveLength(1);
    expect(byWho[0]).toMatchObject({
      transactionHash: receipt.hash,
      blockHash: receipt.blockHash,
      blockNumber: receipt.blockNumber,
      removed: false,
    });
    expect(fixture.interface.parseLog(byWho[0])?.args.toArray()).toEqual([
      deployer.address,
      42n,
      'set',
    ]);
    const byValue = (value: bigint) =>
      provider.getLogs({
        address: fixtureAddress,
        topics: [valueSet, null, zeroPadValue(toBeHex(value), 32)],
        fromBlock: 0,
        toBlock: 'latest',
      });
    expect((await byValue(42n)).map((log) => log.transactionHash)).toEqual([receipt.hash]);
    expect(await byValue(43n)).toEqual([]);
  });

  it('emits many logs in one transaction with consecutive indexes, found by block hash', async () => {
    const receipt = await mined(fixture.emitMany(5n));
    expect(receipt.logs).toHaveLength(5);
    const logs = await provider.getLogs({ blockHash: receipt.blockHash, address: fixtureAddress });
    expect(logs.map((log) => fixture.interface.parseLog(log)?.args[0])).toEqual([
      0n,
      1n,
      2n,
      3n,
      4n,
    ]);
    const indexes = logs.map((log) => log.index);
    expect(indexes).toEqual(indexes.map((_, i) => indexes[0] + i));
    const tick = fixture.interface.getEvent('Tick')!.topicHash;
    const third = await provider.getLogs({
      blockHash: receipt.blockHash,
      topics: [tick, zeroPadValue('0x03', 32)],
    });
    expect(third.map((log) => log.index)).toEqual([indexes[3]]);
  });

  it('proves an account and a storage slot against the block stateRoot (eth_getProof)', async () => {
    await mined(fixture.set(41n));
    await mined(fixture.deposit({ value: 12_345n }));
    const receipt = await mined(fixture.set(77n));
    const blockNumber = receipt.blockNumber;
    const block = await provider.getBlock(blockNumber);
    const proof = await getProof(fixtureAddress, [SLOT_0], blockNumber);

    const account = verifyAccountProof(block!.stateRoot!, fixtureAddress, proof.accountProof);
    expect(account).toEqual({
      nonce: BigInt(proof.nonce),
      balance: BigInt(proof.balance),
      storageRoot: proof.storageHash,
      codeHash: proof.codeHash,
    });
    expect(account?.nonce).toBe(1n);
    expect(account?.balance).toBe(12_345n);
    expect(proof.codeHash).toBe(keccak256(loadContract('Fixture').deployedBytecode));
    expect(BigInt(proof.storageProof[0].value)).toBe(77n);
    expect(verifyStorageProof(proof.storageHash, 0n, proof.storageProof[0].proof)).toBe(77n);

    const parent = await provider.getBlock(blockNumber - 1);
    expect(() =>
      verifyAccountProof(parent!.stateRoot!, fixtureAddress, proof.accountProof),
    ).toThrow();
    const before = await getProof(fixtureAddress, [SLOT_0], blockNumber - 1);
    expect(BigInt(before.storageProof[0].value)).toBe(41n);
    expect(verifyStorageProof(before.storageHash, 0n, before.storageProof[0].proof)).toBe(41n);
  });

  it('proves a sender account and the absence of an unknown one', async () => {
    const blockNumber = await provider.getBlockNumber();
    const block = await provider.getBlock(blockNumber);
    const sender = await getProof(deployer.address, [], blockNumber);
    expect(verifyAccountProof(block!.stateRoot!, deployer.address, sender.accountProof)).toEqual({
      nonce: BigInt(await provider.getTransactionCount(deployer.address, blockNumber)),
      balance: await provider.getBalance(deployer.address, blockNumber),
      storageRoot: EMPTY_TRIE_ROOT,
      codeHash: keccak256('0x'),
    });

    const unknown = Wallet.createRandom().address;
    const absent = await getProof(unknown, [SLOT_0], blockNumber);
    expect(verifyAccountProof(block!.stateRoot!, unknown, absent.accountProof)).toBeNull();
    expect(absent).toMatchObject({
      balance: '0x0',
      nonce: '0x0',
      codeHash: keccak256('0x'),
      storageHash: EMPTY_TRIE_ROOT,
    });
    expect(absent.storageProof).toHaveLength(1);
    expect(BigInt(absent.storageProof[0].value)).toBe(0n);
  });
});
