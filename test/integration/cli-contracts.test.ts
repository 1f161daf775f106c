/**
 * The `contract` and `identity` commands through the built binary against a real daemon, with
 * `--json` parsed: contracts deployed in the test with ethers, registered, listed, read, called
 * (results equal to what ethers reads) and sent to; a handle registered by the node identity,
 * resolved, looked up, used to verify a signature, released and registered by another owner
 * (a dev account through eth_sendTransaction); exit codes 0, 1 (refused) and 2 (bad input).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contract } from 'ethers';
import { Interface, JsonRpcProvider } from 'ethers';
import { DEV_ADDRESSES } from '../../src/daemon/chain/genesis.js';
import type {
  ContractInstance,
  ContractSummary,
  SentTransaction,
  SignedContent,
} from '../../src/shared/rest-api.js';
import registryArtifact from '../../src/daemon/identity/identity-registry.json' with { type: 'json' };
import { runCli, runCliJson } from '../helpers/cli.js';
import { deployFixture, loadContract, type FixtureContractName } from '../helpers/contracts.js';
import { devWallet } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

let daemon: TestDaemon;
let provider: JsonRpcProvider;
let files: string;
let token: Contract;
let tokenAddress: string;
let fixtureAddress: string;

function deploy(name: FixtureContractName, ...args: unknown[]): Promise<Contract> {
  return deployFixture(name, devWallet(0).connect(provider), ...args);
}

beforeAll(async () => {
  daemon = await startTestDaemon(['--json-rpc.ethereum-compat', '--block-time', '0']);
  provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
    pollingInterval: 50,
    cacheTimeout: -1,
  });
  token = await deploy('Token', 10n ** 24n);
  tokenAddress = await token.getAddress();
  fixtureAddress = await (await deploy('Fixture')).getAddress();
  files = mkdtempSync(join(tmpdir(), 'node-cli-contracts-cli-'));
  writeFileSync(join(files, 'Token.json'), JSON.stringify(loadContract('Token')));
  writeFileSync(join(files, 'Fixture.abi.json'), JSON.stringify(loadContract('Fixture').abi));
});

afterAll(async () => {
  provider?.destroy();
  await daemon?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

const at = () => ['--datadir', daemon.dataDir];

describe('contract', () => {
  it('add (artifact file, ABI on stdin), list, abi', async () => {
    const added = await runCliJson<ContractInstance & { name: string }>([
      'contract',
      'add',
      'Token',
      tokenAddress,
      join(files, 'Token.json'),
      ...at(),
    ]);
    expect(added).toMatchObject({ name: 'Token', address: tokenAddress });
    const piped = await runCli(
      ['contract', 'add', 'Fixture', fixtureAddress, ...at()],
      {},
      JSON.stringify(loadContract('Fixture').abi),
    );
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain(`registered Fixture at ${fixtureAddress}`);
    const list = await runCliJson<ContractSummary[]>(['contract', 'list', ...at()]);
    expect(list).toEqual(
      expect.arrayContaining([
        { name: 'IdentityRegistry', address: expect.any(String), source: 'built-in' },
        { name: 'Token', address: tokenAddress, source: 'registered' },
        { name: 'Fixture', address: fixtureAddress, source: 'registered' },
      ]),
    );
    const abi = await runCliJson<ContractInstance>(['contract', 'abi', 'Token', ...at()]);
    expect(abi.address).toBe(tokenAddress);
    expect(abi.abi[0].find((entry) => entry.name === 'balanceOf')).toMatchObject({
      constant: true,
    });
    const human = await runCli(['contract', 'abi', tokenAddress, ...at()]);
    expect(human.stdout).toContain('function balanceOf(address) view returns (uint256)');
  });

  it('call: results equal to what ethers reads, human output labelled', async () => {
    const holder = DEV_ADDRESSES[0];
    const results = await runCliJson<string[]>([
      'contract',
      'call',
      'Token',
      'balanceOf',
      holder,
      ...at(),
    ]);
    expect(results).toEqual([((await token.balanceOf(holder)) as bigint).toString()]);
    const human = await runCli(['contract', 'call', 'Token', 'symbol', ...at()]);
    expect(human.stdout.trim()).toBe(`0 (string): ${(await token.symbol()) as string}`);
  });

  it('send to a payable function with --value: mined, the balance moved', async () => {
    const before = await provider.getBalance(fixtureAddress);
    const sent = await runCliJson<SentTransaction>([
      'contract',
      'send',
      'Fixture',
      'deposit',
      '--value',
      '777',
      ...at(),
    ]);
    expect(sent).toMatchObject({ status: 1, to: fixtureAddress, value: '777' });
    expect((await provider.getTransactionReceipt(sent.transactionHash))?.blockNumber).toBe(
      sent.blockNumber,
    );
    expect((await provider.getBalance(fixtureAddress)) - before).toBe(777n);
  });

  it('errors name what was wrong: exit 1 refused by the node, 2 unusable input', async () => {
    const unknown = await runCli(['contract', 'call', 'Nope', 'name', ...at()]);
    expect(unknown.code).toBe(1);
    expect(unknown.message).toContain('REST error 404: contract Nope not found');
    const reverted = await runCli([
      'contract',
      'send',
      'Token',
      'transfer',
      DEV_ADDRESSES[2],
      '5',
      ...at(),
    ]);
    expect(reverted.code).toBe(1);
    expect(reverted.message).toContain('execution reverted: insufficient balance');
    const value = await runCli([
      'contract',
      'send',
      'Fixture',
      'deposit',
      '--value',
      'lots',
      ...at(),
    ]);
    expect(value.code).toBe(2);
    expect(value.message).toContain('--value must be a whole number of wei');
    const json = await runCli([
      'contract',
      'add',
      'X',
      tokenAddress,
      join(files, 'missing.json'),
      ...at(),
    ]);
    expect(json.code).toBe(2);
  });
});

describe('identity', () => {
  it('register, resolve, lookup, verify by handle, release; another owner takes the handle', async () => {
    const registered = await runCliJson<{
      identity: string;
      owner: string;
      transaction: SentTransaction;
    }>(['identity', 'register', 'cli-node', ...at()]);
    expect(registered).toMatchObject({ identity: 'cli-node', transaction: { status: 1 } });
    const owner = registered.owner;
    const resolved = await runCliJson<{ address: string }>([
      'identity',
      'resolve',
      'cli-node',
      ...at(),
    ]);
    expect(resolved.address.toLowerCase()).toBe(owner);
    const human = await runCli(['identity', 'lookup', owner, ...at()]);
    expect(human.stdout.trim()).toBe('cli-node');
    writeFileSync(join(files, 'doc.json'), JSON.stringify({ a: 1 }));
    const record = await runCliJson<SignedContent>([
      'crypto',
      'sign',
      join(files, 'doc.json'),
      ...at(),
    ]);
    writeFileSync(join(files, 'doc.signed.json'), JSON.stringify(record));
    const verified = await runCli([
      'crypto',
      'verify',
      'cli-node',
      join(files, 'doc.signed.json'),
      ...at(),
    ]);
    expect(verified.code).toBe(0);

    expect((await runCli(['identity', 'release', ...at()])).code).toBe(0);
    const gone = await runCli(['identity', 'resolve', 'cli-node', ...at()]);
    expect(gone.code).toBe(1);
    expect(gone.message).toContain('REST error 404: identity cli-node is not registered');

    const registry = await runCliJson<ContractInstance>([
      'contract',
      'abi',
      'IdentityRegistry',
      ...at(),
    ]);
    const data = new Interface(registryArtifact.abi).encodeFunctionData('register', ['cli-node']);
    const hash = await daemon.authedRpc.call<string>('eth_sendTransaction', [
      { from: DEV_ADDRESSES[5], to: registry.address, data, gas: '0x30000' },
    ]);
    await waitFor(async () => (await provider.getTransactionReceipt(hash)) !== null, 20_000, hash);
    const taken = await runCliJson<{ address: string }>([
      'identity',
      'resolve',
      'cli-node',
      ...at(),
    ]);
    expect(taken.address.toLowerCase()).toBe(DEV_ADDRESSES[5].toLowerCase());
    const refused = await runCli(['identity', 'register', 'cli-node', ...at()]);
    expect(refused.code).toBe(1);
    expect(refused.message).toContain('handle taken');
  });

  it('a malformed handle or owner exits 2 naming it', async () => {
    const handle = await runCli(['identity', 'register', 'No!', ...at()]);
    expect(handle.code).toBe(2);
    expect(handle.message).toContain('invalid handle No!');
    const owner = await runCli(['identity', 'lookup', '0x12', ...at()]);
    expect(owner.code).toBe(2);
    expect(owner.message).toContain('invalid address "0x12"');
  });
});
