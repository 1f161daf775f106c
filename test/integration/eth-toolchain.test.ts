/**
 * The methods developer toolchains call besides the usual ones (issue #18): eth_createAccessList
 * through the node, Foundry's `cast access-list` and viem's `createAccessList`;
 * eth_getAccountInfo against the single-field getters; EIP-712 signing through ethers'
 * `JsonRpcSigner.signTypedData`, checked with `verifyTypedData`; and the errors of each.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AbiCoder,
  Interface,
  JsonRpcProvider,
  TypedDataEncoder,
  Wallet,
  concat,
  getCreateAddress,
  keccak256,
  recoverAddress,
  verifyTypedData,
  type Contract,
  type TypedDataDomain,
  type TypedDataField,
} from 'ethers';
import { createPublicClient, http as viemHttp } from 'viem';
import { resultViolations } from '../helpers/conformance.js';
import { deployFixture, loadContract } from '../helpers/contracts.js';
import { DEV_CHAIN_ID, devWallet, sendAndWait, signDynamicFeeTx } from '../helpers/dev-chain.js';
import { runCast } from '../helpers/foundry.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { rpcError } from '../helpers/rpc-errors.js';

interface AccessListAnswer {
  accessList: Array<{ address: string; storageKeys: string[] }>;
  gasUsed: string;
  error?: string;
}

const SUPPLY = 1_000_000n;
const coder = AbiCoder.defaultAbiCoder();
const token = new Interface(loadContract('Token').abi);
/** Slot of `balanceOf[holder]`: the mapping is the token's second variable (slot 1). */
const balanceSlot = (holder: string) =>
  keccak256(coder.encode(['address', 'uint256'], [holder, 1n]));

/**
 * Runtime of a probe that reads its own slot 5, the code size of `target`, the balance of
 * `sender` and of precompile 0x01, then stops: what geth's tracer lists and leaves out.
 */
function probeRuntime(target: string, sender: string): string {
  const push20 = (address: string) => `73${address.slice(2).toLowerCase()}`;
  return [
    ['6005', '54', '50'], // SLOAD(5)
    [push20(target), '3b', '50'], // EXTCODESIZE(target)
    [push20(sender), '31', '50'], // BALANCE(sender)
    ['6001', '31', '50'], // BALANCE(0x01)
    ['00'], // STOP
  ]
    .flat()
    .join('');
}

/** Gas limit and threshold of the gas-dependent probe (see {@link GAS_DEPENDENT_RUNTIME}). */
const GAS_PROBE_LIMIT = 100_000n;
/**
 * Runtime that reads slot 2 while `gasleft()` is at least 76 000, and slot 1 below. With
 * {@link GAS_PROBE_LIMIT} gas it has 78 998 left without an access list, and 4 300 less once
 * slot 2 is listed (an address and a key of intrinsic gas): the list of the first run sends the
 * second run down the other path, so only a search that runs again finds both slots.
 */
const GAS_DEPENDENT_RUNTIME = [
  ['5a', '620128e0', '90', '10'], // GAS < 76000
  ['600f', '57'], // JUMPI to 0x0f
  ['6002', '54', '50', '00'], // SLOAD(2) STOP
  ['5b', '6001', '54', '50', '00'], // 0x0f: JUMPDEST SLOAD(1) STOP
]
  .flat()
  .join('');

/** Creation code that deploys `runtime` (hex without 0x, shorter than 256 bytes) as it is. */
function initCodeOf(runtime: string): string {
  const length = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${length}80600b6000396000f3${runtime}`;
}

describe('toolchain methods against the daemon (--json-rpc.ethereum-compat, --block-time 0)', () => {
  let daemon: TestDaemon;
  let provider: JsonRpcProvider;
  let deployer: Wallet;
  let tokenAddress: string;
  let probeAddress: string;
  let gasProbeAddress: string;
  let beforeToken: bigint;
  const holder = devWallet(0).address;
  const other = devWallet(1).address;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--json-rpc.ethereum-compat', '--block-time', '0']);
    provider = new JsonRpcProvider(daemon.endpoints.http, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    deployer = devWallet(0).connect(provider);
    beforeToken = BigInt(await daemon.rpc.call<string>('eth_blockNumber'));
    const deployed: Contract = await deployFixture('Token', deployer, SUPPLY);
    tokenAddress = (await deployed.getAddress()).toLowerCase();
    probeAddress = await deployRuntime(probeRuntime(tokenAddress, holder));
    gasProbeAddress = await deployRuntime(GAS_DEPENDENT_RUNTIME);
  }, 120_000);
  afterAll(async () => {
    provider?.destroy();
    await daemon?.stop();
  });

  /** Deploys `runtime` from dev account 0 and answers its address. */
  async function deployRuntime(runtime: string): Promise<string> {
    const receipt = await sendAndWait(
      daemon.rpc,
      await signDynamicFeeTx(devWallet(0), {
        nonce: await provider.getTransactionCount(holder),
        gasLimit: 200_000n,
        data: initCodeOf(runtime),
      }),
    );
    return String(receipt.contractAddress).toLowerCase();
  }

  const createAccessList = (request: Record<string, unknown>, block?: string) =>
    daemon.rpc.call<AccessListAnswer>(
      'eth_createAccessList',
      block === undefined ? [request] : [request, block],
    );
  const transferData = (to: string, amount: bigint) =>
    token.encodeFunctionData('transfer', [to, amount]);

  describe('eth_createAccessList', () => {
    it("lists a token transfer's two balance slots, and the listed transaction uses exactly gasUsed", async () => {
      const request = { from: holder, to: tokenAddress, data: transferData(other, 5n) };
      const answer = await createAccessList(request);
      expect(resultViolations('eth_createAccessList', answer)).toEqual([]);
      expect(answer.error).toBeUndefined();
      expect(answer.accessList).toHaveLength(1);
      expect(answer.accessList[0].address).toBe(tokenAddress);
      expect([...answer.accessList[0].storageKeys].sort()).toEqual(
        [balanceSlot(holder), balanceSlot(other)].sort(),
      );

      const receipt = await sendAndWait(
        daemon.rpc,
        await signDynamicFeeTx(devWallet(0), {
          nonce: await provider.getTransactionCount(holder),
          to: tokenAddress,
          data: request.data,
          gasLimit: BigInt(answer.gasUsed),
          accessList: answer.accessList,
        }),
      );
      expect(receipt.status).toBe('0x1');
      expect(receipt.gasUsed).toBe(answer.gasUsed);
    });

    it("leaves out the sender, the recipient and the precompiles, but keeps the recipient's slots", async () => {
      const answer = await createAccessList({ from: holder, to: probeAddress });
      expect(answer.accessList).toEqual([
        { address: probeAddress, storageKeys: [`0x${'5'.padStart(64, '0')}`] },
        { address: tokenAddress, storageKeys: [] },
      ]);
    });

    it('lists the storage a creation writes under the address the creation will have', async () => {
      // The execution-apis example: init code that stores at slot 0x81 of the new contract.
      const answer = await createAccessList({ from: holder, data: '0x608060806080608155' });
      const created = getCreateAddress({
        from: holder,
        nonce: await provider.getTransactionCount(holder),
      }).toLowerCase();
      expect(answer).toEqual({
        accessList: [{ address: created, storageKeys: [`0x${'81'.padStart(64, '0')}`] }],
        gasUsed: expect.stringMatching(/^0x[1-9a-f][0-9a-f]*$/),
      });
    });

    it('runs again until the list is stable when the list changes the path taken', async () => {
      const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
      const answer = await createAccessList({
        from: holder,
        to: gasProbeAddress,
        gas: `0x${GAS_PROBE_LIMIT.toString(16)}`,
      });
      expect(answer.accessList).toEqual([
        { address: gasProbeAddress, storageKeys: [slot(2), slot(1)] },
      ]);
    });

    it('answers a reverting transaction with what it touched and the error', async () => {
      const answer = await createAccessList({
        from: other,
        to: tokenAddress,
        data: transferData(holder, SUPPLY * 2n),
      });
      expect(answer.error).toBe('execution reverted');
      expect(answer.accessList).toEqual([
        { address: tokenAddress, storageKeys: [balanceSlot(other)] },
      ]);
      expect(BigInt(answer.gasUsed)).toBeGreaterThan(21_000n);
    });

    it('starts from the access list it is given and answers at a past block', async () => {
      const extra = '0x000000000000000000000000000000000000beef';
      const given = await createAccessList({
        from: holder,
        to: tokenAddress,
        data: transferData(other, 1n),
        accessList: [{ address: extra, storageKeys: [] }],
      });
      expect(given.accessList.map((entry) => entry.address)).toEqual([extra, tokenAddress]);
      const past = await createAccessList(
        { from: holder, to: tokenAddress, data: transferData(other, 1n) },
        `0x${beforeToken.toString(16)}`,
      );
      expect(past.accessList).toEqual([]);
      expect(past.error).toBeUndefined();
    });

    it('is what cast access-list and viem createAccessList print and return', async () => {
      const expected = await createAccessList({
        from: holder,
        to: tokenAddress,
        data: transferData(other, 7n),
      });
      const fromCast = JSON.parse(
        await runCast(
          daemon.endpoints.http,
          'access-list',
          tokenAddress,
          'transfer(address,uint256)',
          other,
          '7',
          '--from',
          holder,
          '--json',
        ),
      ) as AccessListAnswer;
      expect(fromCast.accessList).toEqual(expected.accessList);
      expect(BigInt(fromCast.gasUsed)).toBe(BigInt(expected.gasUsed));

      const viem = createPublicClient({ transport: viemHttp(daemon.endpoints.http) });
      const fromViem = await viem.createAccessList({
        account: holder as `0x${string}`,
        to: tokenAddress as `0x${string}`,
        data: transferData(other, 7n) as `0x${string}`,
      });
      expect(fromViem.accessList).toEqual(expected.accessList);
      expect(fromViem.gasUsed).toBe(BigInt(expected.gasUsed));
    });

    it('refuses malformed requests and transactions the node would refuse', async () => {
      const shortKey = await rpcError(
        createAccessList({
          from: holder,
          to: tokenAddress,
          accessList: [{ address: tokenAddress, storageKeys: ['0x01'] }],
        }),
      );
      expect(shortKey.code).toBe(-32602);
      expect(shortKey.message).toMatch(/accessList\.0\.storageKeys\.0/);
      const noGas = await rpcError(
        createAccessList({
          from: holder,
          to: tokenAddress,
          data: transferData(other, 1n),
          gas: '0x5208',
        }),
      );
      expect(noGas.code).toBe(-32000);
      expect(noGas.message).toMatch(/intrinsic gas too low/);
      const poor = await rpcError(
        createAccessList({
          from: '0x000000000000000000000000000000000000dead',
          to: tokenAddress,
          gasPrice: '0x3b9aca00',
        }),
      );
      expect(poor.message).toMatch(/insufficient funds/);
    });
  });

  describe('eth_getAccountInfo', () => {
    it('agrees with eth_getBalance, eth_getTransactionCount and eth_getCode, now and at a past block', async () => {
      const fresh = '0x00000000000000000000000000000000000c0ffe';
      for (const block of ['latest', `0x${beforeToken.toString(16)}`]) {
        for (const address of [holder, tokenAddress, fresh]) {
          const info = await daemon.rpc.call<Record<string, string>>('eth_getAccountInfo', [
            address,
            block,
          ]);
          expect(info).toEqual({
            balance: await daemon.rpc.call('eth_getBalance', [address, block]),
            nonce: await daemon.rpc.call('eth_getTransactionCount', [address, block]),
            code: await daemon.rpc.call('eth_getCode', [address, block]),
          });
        }
      }
      const atHead = await daemon.rpc.call<{ code: string }>('eth_getAccountInfo', [tokenAddress]);
      expect(atHead.code.length).toBeGreaterThan(2);
    });

    it('names a bad address and a block beyond the head', async () => {
      const bad = await rpcError(daemon.rpc.call('eth_getAccountInfo', ['0x1234', 'latest']));
      expect(bad.code).toBe(-32602);
      expect(bad.message).toMatch(/address/);
      const beyond = await rpcError(daemon.rpc.call('eth_getAccountInfo', [holder, '0xffffffff']));
      expect(beyond.message).toBe('header not found');
    });
  });

  describe('eth_signTypedData', () => {
    const domain: TypedDataDomain = {
      name: 'Toolchain Mail',
      version: '1',
      chainId: DEV_CHAIN_ID,
      verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
    };
    const types: Record<string, TypedDataField[]> = {
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallets', type: 'address[]' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person[]' },
        { name: 'contents', type: 'string' },
        { name: 'amount', type: 'uint256' },
      ],
    };
    const mail = {
      from: { name: 'Cow', wallets: [holder] },
      to: [{ name: 'Bob', wallets: [other, '0xB0B0b0b0b0b0B000000000000000000000000000'] }],
      contents: 'Hello, Bob!',
      amount: 10n ** 18n,
    };
    const payload = () => TypedDataEncoder.getPayload(domain, types, mail);

    it('signs for ethers JsonRpcSigner.signTypedData, which verifyTypedData accepts', async () => {
      const signer = await provider.getSigner(holder);
      const signature = await signer.signTypedData(domain, types, mail);
      expect(verifyTypedData(domain, types, mail, signature)).toBe(holder);
    });

    it('signs the same as v4 under eth_signTypedData, and as an object or JSON text', async () => {
      const asText = await daemon.rpc.call('eth_signTypedData_v4', [
        holder,
        JSON.stringify(payload()),
      ]);
      const asObject = await daemon.rpc.call('eth_signTypedData_v4', [holder, payload()]);
      const plain = await daemon.rpc.call('eth_signTypedData', [holder, payload()]);
      expect(asObject).toBe(asText);
      expect(plain).toBe(asText);
    });

    it('signs v3 data (no arrays) and refuses arrays under v3', async () => {
      const flatTypes = {
        Note: [
          { name: 'text', type: 'string' },
          { name: 'n', type: 'uint8' },
        ],
      };
      const note = { text: 'v3', n: 7 };
      const signature = await daemon.rpc.call<string>('eth_signTypedData_v3', [
        other,
        TypedDataEncoder.getPayload(domain, flatTypes, note),
      ]);
      expect(verifyTypedData(domain, flatTypes, note, signature)).toBe(other);
      const refused = await rpcError(daemon.rpc.call('eth_signTypedData_v3', [holder, payload()]));
      expect(refused.code).toBe(-32602);
      expect(refused.message).toMatch(
        /v3 has no arrays \(field "to" of Mail is Person\[\]\); use eth_signTypedData_v4/,
      );
    });

    it('hashes the domain by the EIP712Domain type the caller lists, in its order', async () => {
      const domainType = [
        { name: 'chainId', type: 'uint256' },
        { name: 'name', type: 'string' },
      ];
      const flatTypes = { Note: [{ name: 'text', type: 'string' }] };
      const data = {
        types: { EIP712Domain: domainType, ...flatTypes },
        primaryType: 'Note',
        domain: { chainId: 9000, name: 'Reordered' },
        message: { text: 'order matters' },
      };
      const signature = await daemon.rpc.call<string>('eth_signTypedData_v4', [holder, data]);
      const digest = keccak256(
        concat([
          '0x1901',
          TypedDataEncoder.hashStruct('EIP712Domain', { EIP712Domain: domainType }, data.domain),
          TypedDataEncoder.hashStruct('Note', flatTypes, data.message),
        ]),
      );
      expect(recoverAddress(digest, signature)).toBe(holder);
    });

    it('says what is wrong with malformed typed data, and refuses accounts it has no key for', async () => {
      const cases: Array<[unknown, RegExp]> = [
        ['{"types":', /invalid typed data: not valid JSON/],
        [{ ...payload(), primaryType: undefined }, /"primaryType" must be a string/],
        [{ ...payload(), primaryType: 'Letter' }, /primaryType "Letter" is not in "types"/],
        [
          { ...payload(), types: { ...payload().types, Mail: 'x' } },
          /types\.Mail must be an array/,
        ],
        [{ ...payload(), message: [] }, /"message" must be an object/],
        [
          {
            types: { Note: [{ name: 'n', type: 'uint8' }] },
            primaryType: 'Note',
            domain: {},
            message: { n: 300 },
          },
          /invalid typed data: .*value out-of-bounds/,
        ],
        [
          {
            types: { Note: [{ name: 'p', type: 'Missing' }] },
            primaryType: 'Note',
            domain: {},
            message: { p: 1 },
          },
          /invalid typed data: .*unknown type/,
        ],
      ];
      for (const [typedData, message] of cases) {
        const error = await rpcError(daemon.rpc.call('eth_signTypedData_v4', [holder, typedData]));
        expect({ code: error.code, message: error.message }).toEqual({
          code: -32602,
          message: expect.stringMatching(message),
        });
      }
      const stranger = Wallet.createRandom().address;
      const unknown = await rpcError(
        daemon.rpc.call('eth_signTypedData_v4', [stranger, payload()]),
      );
      expect(unknown.message).toMatch(/unknown account/);
    });
  });
});
