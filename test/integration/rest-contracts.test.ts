/**
 * The contract and identity routes of the REST interface against a real daemon through real
 * HTTP: an ERC-20 and a payable contract deployed in the test with ethers, called and sent to
 * by name and by address with results equal to what ethers reads; `exists` for the right ABI,
 * a wrong one and an address without code; the identity registry in the genesis at its fixed
 * address, and deployed by the node on a data directory of an earlier release whose genesis has
 * none; handles registered, resolved, released and taken by another owner, and verify by handle.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, Interface, JsonRpcProvider, computeAddress, type Wallet } from 'ethers';
import { request } from 'undici';
import { RestClient } from '../../src/client/rest-client.js';
import { Chain } from '../../src/daemon/chain/chain.js';
import { DEV_ADDRESSES, devGenesis } from '../../src/daemon/chain/genesis.js';
import registryArtifact from '../../src/daemon/identity/identity-registry.json' with { type: 'json' };
import { IDENTITY_REGISTRY_ADDRESS } from '../../src/daemon/identity/registry-predeploy.js';
import { runCli } from '../helpers/cli.js';
import { deployFixture, loadContract, type FixtureContractName } from '../helpers/contracts.js';
import { devWallet } from '../helpers/dev-chain.js';
import { waitFor } from '../helpers/processes.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const SUPPLY = 1_000_000n * 10n ** 18n;
const ZERO_CODE_ADDRESS = '0x00000000000000000000000000000000000000aa';

let daemon: TestDaemon;
let rest: RestClient;
let anonymous: RestClient;
let provider: JsonRpcProvider;
let deployer: Wallet;
let token: Contract;
let fixture: Contract;
let tokenAddress: string;
let fixtureAddress: string;
let nodeAddress: string;

function deploy(name: FixtureContractName, ...args: unknown[]): Promise<Contract> {
  return deployFixture(name, deployer, ...args);
}

beforeAll(async () => {
  daemon = await startTestDaemon(['--json-rpc.ethereum-compat', '--block-time', '0']);
  rest = new RestClient(daemon.endpoints.rest as string, { token: daemon.token });
  anonymous = new RestClient(daemon.endpoints.rest as string);
  provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
    pollingInterval: 50,
    cacheTimeout: -1,
  });
  deployer = devWallet(0).connect(provider);
  token = await deploy('Token', SUPPLY);
  fixture = await deploy('Fixture');
  tokenAddress = await token.getAddress();
  fixtureAddress = await fixture.getAddress();
  const record = JSON.parse(readFileSync(join(daemon.dataDir, 'node_key.json'), 'utf8')) as {
    privateKey: string;
  };
  nodeAddress = computeAddress(`0x${record.privateKey}`);
});

afterAll(async () => {
  provider?.destroy();
  await Promise.all([rest?.close(), anonymous?.close()]);
  await daemon?.stop();
});

const post = (client: RestClient, path: string, body: unknown) =>
  client.request('POST', path, body);

function expectError(answer: { status: number; body: unknown }, status: number, text: RegExp) {
  expect(answer.body).toEqual({ error: { code: status, message: expect.stringMatching(text) } });
  expect(answer.status).toBe(status);
}

describe('contracts registry', () => {
  it('POST /contracts registers a name; GET by name and by address answers the spec shape', async () => {
    const abi = loadContract('Token').abi as Record<string, unknown>[];
    const added = await post(rest, '/contracts', { name: 'Token', address: tokenAddress, abi });
    expect(added.status).toBe(200);
    const byName = await rest.request('GET', '/contracts/Token');
    expect(byName.status).toBe(200);
    const body = byName.body as { data: { address: string; abi: Record<string, unknown>[][] } };
    expect(Object.keys(body.data).sort()).toEqual(['abi', 'address']);
    expect(body.data.address).toBe(tokenAddress);
    expect(body.data.abi).toHaveLength(1);
    const balanceOf = body.data.abi[0].find((entry) => entry.name === 'balanceOf');
    expect(balanceOf).toEqual({
      inputs: [{ internalType: 'address', name: '', type: 'address' }],
      name: 'balanceOf',
      outputs: [{ internalType: 'uint256', name: '', type: 'uint256' }],
      stateMutability: 'view',
      type: 'function',
      constant: true,
    });
    expect(body.data.abi[0].find((entry) => entry.name === 'transfer')).toMatchObject({
      stateMutability: 'nonpayable',
      constant: false,
    });
    expect(body.data.abi[0]).toHaveLength(abi.length);
    const byAddress = await rest.request('GET', `/contracts/${tokenAddress.toLowerCase()}`);
    expect(byAddress).toMatchObject({ status: 200, body: byName.body });
    expect(
      JSON.parse(readFileSync(join(daemon.dataDir, 'contracts/registry.json'), 'utf8')),
    ).toMatchObject({ Token: { address: tokenAddress } });
  });

  it('an ABI file dropped into <datadir>/contracts is found by its name', async () => {
    const artifact = loadContract('Fixture');
    mkdirSync(join(daemon.dataDir, 'contracts'), { recursive: true });
    writeFileSync(
      join(daemon.dataDir, 'contracts/Fixture.json'),
      JSON.stringify({ abi: artifact.abi, address: fixtureAddress }),
    );
    const answer = await rest.request('GET', '/contracts/Fixture');
    expect(answer).toMatchObject({ status: 200, body: { data: { address: fixtureAddress } } });
    const list = await rest.request('GET', '/contracts');
    expect((list.body as { data: unknown[] }).data).toEqual(
      expect.arrayContaining([
        { name: 'Token', address: tokenAddress, source: 'registered' },
        { name: 'Fixture', address: fixtureAddress, source: 'file' },
        { name: 'IdentityRegistry', address: expect.any(String), source: 'built-in' },
      ]),
    );
  });

  it('unknown: 404; malformed: 400 naming the field; no token: 401', async () => {
    expectError(await rest.request('GET', '/contracts/Nope'), 404, /contract Nope not found/);
    expectError(
      await post(rest, '/contracts', { name: 'X', address: '0x12', abi: [] }),
      400,
      /address/,
    );
    expectError(
      await post(rest, '/contracts', { name: '9bad', address: tokenAddress, abi: [] }),
      400,
      /name/,
    );
    expectError(
      await post(rest, '/contracts', {
        name: 'Bad',
        address: tokenAddress,
        abi: [{ type: 'function', name: 'f', inputs: [{ type: 'uint999' }] }],
      }),
      400,
      /^abi is not a valid ABI/,
    );
    expectError(await anonymous.request('GET', '/contracts/Token'), 401, /unauthorized/);
    expectError(await anonymous.request('GET', '/contracts'), 401, /unauthorized/);
    expectError(await post(anonymous, '/contracts', {}), 401, /unauthorized/);
  });
});

describe('input the interface used to fail on', () => {
  /** An address in mixed case whose EIP-55 checksum is wrong: matched in any case all the same. */
  const miscased = (address: string) => {
    const lower = address.toLowerCase();
    const flipped = lower.slice(0, 2) + lower[2].toUpperCase() + lower.slice(3);
    return /[a-f]/.test(lower[2]) ? flipped : lower.slice(0, -1) + lower.at(-1)!.toUpperCase();
  };

  it('an address whose checksum is wrong is matched in any case, not a 500', async () => {
    const address = miscased(tokenAddress);
    expect(address.toLowerCase()).toBe(tokenAddress.toLowerCase());
    expect(address).not.toBe(tokenAddress);
    const found = await rest.request('GET', `/contracts/${address}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ data: { address: tokenAddress } });
    const called = await post(rest, '/contracts/call', {
      contract: address,
      method: 'totalSupply',
      params: [],
    });
    expect(called.body).toEqual({ data: [SUPPLY.toString()] });
    const owner = await rest.request('GET', `/owners/${miscased(DEV_ADDRESSES[7])}/identity`);
    expectError(owner, 404, /has no identity/);
  });

  it('an answer that does not fit the ABI is a 400 saying so', async () => {
    const abi = [
      {
        type: 'function',
        name: 'totalSupply',
        inputs: [],
        outputs: [{ type: 'uint256' }],
        stateMutability: 'view',
      },
    ];
    const registered = await post(rest, '/contracts', {
      name: 'NoCode',
      address: ZERO_CODE_ADDRESS,
      abi,
    });
    expect(registered.status).toBe(200);
    expectError(
      await post(rest, '/contracts/call', {
        contract: 'NoCode',
        method: 'totalSupply',
        params: [],
      }),
      400,
      /^totalSupply\(\) returned no data, not \(uint256\): is there a contract at 0x/,
    );
  });

  it('a number beyond 2^53 in a body is refused, not rounded: amountInWei is sent exactly or not at all', async () => {
    const raw = (text: string) =>
      request(`${daemon.endpoints.rest}/contracts/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: text,
      }).then(async (answer) => ({ status: answer.statusCode, body: await answer.body.json() }));
    expectError(
      await raw(
        '{"contract":"Fixture","method":"deposit","params":[],"amountInWei":1000000000000000001}',
      ),
      400,
      /the number at "amountInWei" is beyond .* send it as a decimal or 0x string/,
    );
    expectError(
      await raw('{"contract":"Fixture","method":"deposit","params":[],"__proto__":{"x":1}}'),
      400,
      /the key "__proto__" is not accepted/,
    );
    expectError(await raw('{"contract":'), 400, /request body is not valid JSON/);
  });
});

describe('contracts/exists', () => {
  it('true for the right ABI, false for a wrong one and for an address without code', async () => {
    const tokenAbi = loadContract('Token').abi;
    const fixtureAbi = loadContract('Fixture').abi;
    const exists = async (address: string, abi: unknown) =>
      post(rest, '/contracts/exists', { address, abi });
    expect(await exists(tokenAddress, tokenAbi)).toMatchObject({
      status: 200,
      body: { data: { exists: true } },
    });
    expect((await exists(fixtureAddress, fixtureAbi)).body).toEqual({ data: { exists: true } });
    expect((await exists(tokenAddress, fixtureAbi)).body).toEqual({ data: { exists: false } });
    expect((await exists(ZERO_CODE_ADDRESS, tokenAbi)).body).toEqual({ data: { exists: false } });
    // The nested form GET answers is taken back as is.
    const shaped = (await rest.request('GET', '/contracts/Token')).body as {
      data: { abi: unknown };
    };
    expect((await exists(tokenAddress, shaped.data.abi)).body).toEqual({ data: { exists: true } });
    expectError(await exists('nope', tokenAbi), 400, /address/);
    expectError(await post(rest, '/contracts/exists', { address: tokenAddress }), 400, /abi/);
    expectError(await post(anonymous, '/contracts/exists', {}), 401, /unauthorized/);
  });
});

describe('contracts/call and contracts/send', () => {
  it('call decodes results equal to what ethers reads', async () => {
    const call = (body: unknown) => post(rest, '/contracts/call', body);
    const balance = await call({
      contract: 'Token',
      method: 'balanceOf',
      params: [deployer.address],
    });
    expect(balance).toMatchObject({ status: 200 });
    expect(balance.body).toEqual({
      data: [((await token.balanceOf(deployer.address)) as bigint).toString()],
    });
    expect((await call({ contract: tokenAddress, method: 'name', params: [] })).body).toEqual({
      data: [await token.name()],
    });
    expect((await call({ contract: 'Fixture', method: 'value()', params: [] })).body).toEqual({
      data: [((await fixture.value()) as bigint).toString()],
    });
  });

  it('send to the ERC-20 and to a payable function: mined, effects equal what ethers reads', async () => {
    const balances = async () => [
      (await token.balanceOf(DEV_ADDRESSES[3])) as bigint,
      await provider.getBalance(fixtureAddress),
    ];
    const [tokensBefore, etherBefore] = await balances();
    // The identity needs tokens to send some: the deployer gives it 1000.
    const fund = await (token.connect(deployer) as Contract).transfer(nodeAddress, 1000n);
    await waitFor(
      async () => (await provider.getTransactionReceipt(fund.hash)) !== null,
      20_000,
      'fund',
    );
    const sent = await post(rest, '/contracts/send', {
      contract: 'Token',
      method: 'transfer(address,uint256)',
      params: [DEV_ADDRESSES[3], 250],
      amountInWei: '0',
    });
    expect(sent.status).toBe(200);
    const [item] = (sent.body as { data: Record<string, unknown>[] }).data;
    expect(item).toEqual({
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      blockNumber: expect.any(Number),
      blockHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      status: 1,
      from: nodeAddress.toLowerCase(),
      to: tokenAddress,
      gasUsed: expect.stringMatching(/^\d+$/),
      value: '0',
    });
    const receipt = await provider.getTransactionReceipt(item.transactionHash as string);
    expect(receipt).toMatchObject({ blockNumber: item.blockNumber, status: 1 });
    const deposit = await post(rest, '/contracts/send', {
      contract: 'Fixture',
      method: 'deposit',
      params: [],
      amountInWei: 12345,
    });
    expect(deposit.status).toBe(200);
    const [tokensAfter, etherAfter] = await balances();
    expect(tokensAfter - tokensBefore).toBe(250n);
    expect(etherAfter - etherBefore).toBe(12345n);
  });

  it('refusals: a revert (400 with the reason), overloads, types, payable, malformed, 401', async () => {
    const send = (body: Record<string, unknown>) =>
      post(rest, '/contracts/send', { params: [], amountInWei: '0', ...body });
    expectError(
      await send({
        contract: 'Token',
        method: 'transfer',
        params: [DEV_ADDRESSES[3], (SUPPLY * 2n).toString()],
      }),
      400,
      /^execution reverted: insufficient balance$/,
    );
    expectError(
      await post(rest, '/contracts/call', {
        contract: 'Fixture',
        method: 'failCustom',
        params: ['7'],
      }),
      400,
      new RegExp(`^execution reverted: Refused\\("7", "${nodeAddress}"\\)$`),
    );
    expectError(
      await send({ contract: 'Fixture', method: 'fail' }),
      400,
      /^method: fail\(\) is pure; use contracts\/call$/,
    );
    expectError(
      await send({ contract: 'Fixture', method: 'set', amountInWei: '1', params: ['1'] }),
      400,
      /^amountInWei: set\(uint256\) is not payable/,
    );
    expectError(await send({ contract: 'Fixture', method: 'get' }), 400, /use contracts\/call/);
    expectError(
      await send({ contract: 'Fixture', method: 'deposit', amountInWei: '-1' }),
      400,
      /amountInWei/,
    );
    expectError(
      await send({ contract: 'Fixture', method: 'deposit', amountInWei: 1.5 }),
      400,
      /amountInWei/,
    );
    expectError(
      await post(rest, '/contracts/call', {
        contract: 'Token',
        method: 'balanceOf',
        params: ['x'],
      }),
      400,
      /^params do not fit balanceOf\(address\)/,
    );
    expectError(
      await post(rest, '/contracts/call', { contract: 'Token', method: 'balanceOf', params: [] }),
      400,
      /^params: balanceOf\(address\) takes 1 parameter/,
    );
    expectError(
      await post(rest, '/contracts/call', { contract: 'Token', method: 'mint', params: [] }),
      400,
      /^method: Token has no function named mint/,
    );
    expectError(
      await post(rest, '/contracts/call', { contract: 'Token', method: 'name' }),
      400,
      /params/,
    );
    expectError(
      await post(rest, '/contracts/call', { contract: 'Nope', method: 'name', params: [] }),
      404,
      /contract Nope not found/,
    );
    expectError(await send({ contract: 'Fixture' }), 400, /method/);
    expectError(await post(anonymous, '/contracts/call', {}), 401, /unauthorized/);
    expectError(await post(anonymous, '/contracts/send', {}), 401, /unauthorized/);
  });

  it('an overloaded bare name is refused naming the candidates', async () => {
    const abi = [
      'function pick(uint256) view returns (uint256)',
      'function pick(address) view returns (uint256)',
    ];
    const json = JSON.parse(new Interface(abi).formatJson()) as unknown[];
    await post(rest, '/contracts', { name: 'Overloaded', address: fixtureAddress, abi: json });
    expectError(
      await post(rest, '/contracts/call', {
        contract: 'Overloaded',
        method: 'pick',
        params: ['1'],
      }),
      400,
      /^method: pick is overloaded in Overloaded; name one of pick\((uint256|address)\), pick\((address|uint256)\)$/,
    );
  });
});

describe('identity', () => {
  const send = (method: string, params: unknown[]) =>
    post(rest, '/contracts/send', {
      contract: 'IdentityRegistry',
      method,
      params,
      amountInWei: '0',
    });

  it('the registry is in the genesis at its fixed address: its code is the committed artifact', async () => {
    const answer = await rest.request('GET', '/contracts/IdentityRegistry');
    expect((answer.body as { data: { address: string } }).data.address).toBe(
      IDENTITY_REGISTRY_ADDRESS,
    );
    expect(await provider.getCode(IDENTITY_REGISTRY_ADDRESS, 0)).toBe(
      registryArtifact.deployedBytecode,
    );
    expect(existsSync(join(daemon.dataDir, 'identity-registry.json'))).toBe(false);
  });

  it('register, resolve, look up, verify by handle, release, then another owner takes it', async () => {
    expect((await send('register', ['node-one'])).status).toBe(200);
    expect((await rest.request('GET', '/identities/node-one')).body).toEqual({
      data: { address: nodeAddress },
    });
    expect((await rest.request('GET', `/owners/${nodeAddress}/identity`)).body).toEqual({
      data: { identity: 'node-one' },
    });
    const signed = await rest.sign({ hello: 'world' });
    expect(await rest.verify('node-one', signed)).toBe(true);
    expectError(await send('register', ['node-two']), 400, /owner has a handle/);
    expect((await send('release', [])).status).toBe(200);
    expectError(
      await rest.request('GET', '/identities/node-one'),
      404,
      /identity node-one is not registered/,
    );
    expectError(
      await rest.request('GET', `/owners/${nodeAddress}/identity`),
      404,
      /has no identity/,
    );
    expect(await rest.verify('node-one', signed).catch((error: Error) => error.message)).toMatch(
      /not registered/,
    );

    const registry = (await rest.request('GET', '/contracts/IdentityRegistry')).body as {
      data: { address: string };
    };
    const other = new Contract(
      registry.data.address,
      registryArtifact.abi,
      devWallet(4).connect(provider),
    );
    const tx = await other.register('node-one');
    await waitFor(
      async () => (await provider.getTransactionReceipt(tx.hash)) !== null,
      20_000,
      'register',
    );
    expect((await rest.request('GET', '/identities/node-one')).body).toEqual({
      data: { address: DEV_ADDRESSES[4] },
    });
    expectError(await send('register', ['node-one']), 400, /handle taken/);
    expect(await rest.verify('node-one', signed)).toBe(false);
  });

  it('malformed: 400 naming the field; no token: 401', async () => {
    expectError(await rest.request('GET', '/identities/No'), 400, /identity/);
    expectError(await rest.request('GET', '/identities/UPPER-case'), 400, /identity/);
    expectError(await rest.request('GET', '/identities/0xabc'), 400, /identity/);
    expectError(await rest.request('GET', '/owners/0x12/identity'), 400, /owner/);
    expectError(await anonymous.request('GET', '/identities/node-one'), 401, /unauthorized/);
    expectError(
      await anonymous.request('GET', `/owners/${nodeAddress}/identity`),
      401,
      /unauthorized/,
    );
  });
});

describe('a data directory of an earlier release, whose dev genesis has no registry', () => {
  let old: TestDaemon;
  let oldRest: RestClient;

  beforeAll(async () => {
    const dataDir = makeDataDir();
    const chain = await Chain.open({ dataDir, genesis: devGenesis({ identityRegistry: false }) });
    await chain.close();
    old = await startTestDaemon(['--json-rpc.ethereum-compat', '--block-time', '0'], dataDir);
    oldRest = new RestClient(old.endpoints.rest as string, { token: old.token });
  });

  afterAll(async () => {
    await oldRest?.close();
    await old?.stop();
  });

  it('starts on its genesis, gets the registry deployed by the node, and keeps it across a restart', async () => {
    expect(await old.rpc.call('eth_getCode', [IDENTITY_REGISTRY_ADDRESS, 'latest'])).toBe('0x');
    const answer = await oldRest.request('GET', '/contracts/IdentityRegistry');
    const { address } = (answer.body as { data: { address: string } }).data;
    expect(address).not.toBe(IDENTITY_REGISTRY_ADDRESS);
    expect(await old.rpc.call('eth_getCode', [address, 'latest'])).toBe(
      registryArtifact.deployedBytecode,
    );
    const record = JSON.parse(readFileSync(join(old.dataDir, 'identity-registry.json'), 'utf8'));
    expect(record).toMatchObject({ address });

    const check = await runCli(['daemon', 'check', '--datadir', old.dataDir]);
    expect(check.stdout).toContain('no problems found');
    await Promise.all([oldRest.close(), old.rpc.close(), old.authedRpc.close()]);
    expect((await runCli(['daemon', 'stop', '--datadir', old.dataDir])).code).toBe(0);
    old = await startTestDaemon(['--json-rpc.ethereum-compat', '--block-time', '0'], old.dataDir);
    oldRest = new RestClient(old.endpoints.rest as string, { token: old.token });
    const again = await oldRest.request('GET', '/contracts/IdentityRegistry');
    expect((again.body as { data: { address: string } }).data.address).toBe(address);
  });
});
