import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { MerklePatriciaTrie, verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Address, bytesToBigInt, bytesToHex, createAccount, hexToBytes } from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';
import { HDNodeWallet, keccak256 } from 'ethers';
import { Chain } from '../../src/daemon/chain/chain.js';
import {
  DEV_ADDRESSES,
  DEV_MNEMONIC,
  DEV_PRIVATE_KEYS,
  devGenesis,
} from '../../src/daemon/chain/genesis.js';
import { parseGenesisFile } from '../../src/shared/genesis-file.js';
import { ConflictError, InvalidInputError } from '../../src/shared/errors.js';
import registryArtifact from '../../src/daemon/identity/identity-registry.json' with { type: 'json' };
import { IDENTITY_REGISTRY_ADDRESS } from '../../src/daemon/identity/registry-predeploy.js';
import {
  deployCode,
  deployStoreContract,
  devAddress,
  pooled,
  signTx,
  storeContractRuntime,
  tempDataDir,
  word,
} from './chain-fixtures.js';

const ETHER = 10n ** 18n;

describe('genesis', () => {
  it('holds the keys of the well-known test mnemonic', () => {
    for (let i = 0; i < 10; i++) {
      const wallet = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);
      expect(wallet.privateKey).toBe(DEV_PRIVATE_KEYS[i]);
      expect(wallet.address).toBe(DEV_ADDRESSES[i]);
    }
    expect(DEV_ADDRESSES[0]).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it('parses a geth-like file and names the bad field', () => {
    const config = parseGenesisFile({
      config: { chainId: 1234 },
      gasLimit: '0x1c9c380',
      timestamp: '0x10',
      extraData: '0x01',
      alloc: {
        f39Fd6e51aad88F6F4ce6aB8827279cffFb92266: { balance: '1000', storage: { '0x01': '0x02' } },
      },
    });
    expect(config.chainId).toBe(1234n);
    expect(config.gasLimit).toBe(30_000_000n);
    expect(config.alloc.get('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')?.balance).toBe(1000n);
    expect(() => parseGenesisFile({ config: {}, gasLimit: 1, alloc: {} })).toThrow(
      'config.chainId',
    );
    expect(() => parseGenesisFile({ config: { chainId: 1 }, gasLimit: 'x', alloc: {} })).toThrow(
      InvalidInputError,
    );
    expect(() =>
      parseGenesisFile({
        config: { chainId: 1 },
        gasLimit: 30000000,
        alloc: { '0x12': { balance: 1 } },
      }),
    ).toThrow('alloc key 0x12');
  });
});

describe('chain persistence', () => {
  let dir: string;
  let cleanup: () => void;

  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
  });
  afterEach(() => cleanup());

  it('creates the dev genesis with a state root computed independently', async () => {
    const chain = await Chain.open({ dataDir: dir, genesis: devGenesis() });
    try {
      const trie = new MerklePatriciaTrie({ useKeyHashing: true });
      for (const address of DEV_ADDRESSES) {
        const addr = new Address(hexToBytes(address as PrefixedHexString));
        await trie.put(addr.bytes, createAccount({ balance: 10_000n * ETHER }).serialize());
        expect(await chain.getBalance(addr, 0n)).toBe(10_000n * ETHER);
      }
      const registry = new Address(hexToBytes(IDENTITY_REGISTRY_ADDRESS));
      const registryCode = registryArtifact.deployedBytecode as PrefixedHexString;
      await trie.put(
        registry.bytes,
        createAccount({
          nonce: 1n,
          balance: 0n,
          codeHash: hexToBytes(keccak256(registryCode) as PrefixedHexString),
        }).serialize(),
      );
      expect(bytesToHex(await chain.getCode(registry, 0n))).toBe(registryCode);
      const genesis = chain.getBlockByNumber(0n)!;
      expect(bytesToHex(genesis.block.header.stateRoot)).toBe(bytesToHex(trie.root()));
      expect(genesis.hashHex).toBe(keccak256(RLP.encode(genesis.block.header.raw())));
      expect(chain.chainId).toBe(9000n);
    } finally {
      await chain.close();
    }
  });

  it('resumes at the same head and state root, and reads history', async () => {
    const first = await Chain.open({ dataDir: dir, genesis: devGenesis() });
    const contract = await deployStoreContract(first, 0n, 1n);
    const store1 = signTx(first.common, 0, {
      nonce: 1n,
      to: contract,
      data: word(1n),
      gasLimit: 100_000n,
    });
    await first.buildAndCommitBlock([pooled(store1)], 2n);
    const store2 = signTx(first.common, 0, {
      nonce: 2n,
      to: contract,
      data: word(2n),
      gasLimit: 100_000n,
    });
    const transfer = signTx(first.common, 1, { nonce: 0n, to: devAddress(5), value: 77n });
    await first.buildAndCommitBlock([pooled(store2), pooled(transfer)], 3n);
    const head = first.head();
    await first.close();

    const chain = await Chain.open({ dataDir: dir, genesis: devGenesis() });
    try {
      expect(chain.head().number).toBe(3n);
      expect(chain.head().hashHex).toBe(head.hashHex);
      expect(chain.head().block.header.stateRoot).toEqual(head.block.header.stateRoot);
      expect(bytesToBigInt(await chain.getStorageAt(contract, new Uint8Array([0]), 2n))).toBe(1n);
      expect(bytesToBigInt(await chain.getStorageAt(contract, new Uint8Array([0]), 3n))).toBe(2n);
      expect(await chain.getBalance(devAddress(5), 2n)).toBe(10_000n * ETHER);
      expect(await chain.getBalance(devAddress(5), 3n)).toBe(10_000n * ETHER + 77n);
      expect(await chain.getNonce(devAddress(0), 1n)).toBe(1n);
      expect((await chain.getCode(contract, 0n)).length).toBe(0);
      expect(chain.getReceipt(store2.hash())?.blockNumber).toBe(3n);

      const next = signTx(chain.common, 0, { nonce: 3n, to: devAddress(6), value: 1n });
      const committed = await chain.buildAndCommitBlock([pooled(next)], 4n);
      expect(committed.block.block.header.parentHash).toEqual(head.hash);
    } finally {
      await chain.close();
    }
  });

  it('serves EIP-1186 proofs that verify against the block state root', async () => {
    const chain = await Chain.open({ dataDir: dir, genesis: devGenesis() });
    try {
      const deploy = signTx(chain.common, 0, {
        nonce: 0n,
        data: deployCode(storeContractRuntime()),
        gasLimit: 200_000n,
      });
      const contract = (await chain.buildAndCommitBlock([pooled(deploy)], 1n)).receipts[0]
        .contractAddress!;
      const set = signTx(chain.common, 0, {
        nonce: 1n,
        to: contract,
        data: word(99n),
        gasLimit: 100_000n,
      });
      await chain.buildAndCommitBlock([pooled(set)], 2n);

      const proof = await chain.getProof(contract, [new Uint8Array([0])], 2n);
      const stateRoot = chain.getBlockByNumber(2n)!.block.header.stateRoot;
      const accountRlp = await verifyMerkleProof(
        contract.bytes,
        proof.accountProof.map((p) => hexToBytes(p)),
        { useKeyHashing: true, root: stateRoot },
      );
      expect(accountRlp).not.toBeNull();
      const [, , storageRoot] = RLP.decode(accountRlp!) as Uint8Array[];
      expect(bytesToHex(storageRoot)).toBe(proof.storageHash);
      const slotValue = await verifyMerkleProof(
        new Uint8Array(32),
        proof.storageProof[0].proof.map((p) => hexToBytes(p)),
        { useKeyHashing: true, root: storageRoot },
      );
      expect(bytesToBigInt(RLP.decode(slotValue!) as Uint8Array)).toBe(99n);
      expect(BigInt(proof.storageProof[0].value)).toBe(99n);

      const old = await chain.getProof(devAddress(0), [], 0n);
      expect(BigInt(old.balance)).toBe(10_000n * ETHER);
      expect(BigInt(old.nonce)).toBe(0n);
    } finally {
      await chain.close();
    }
  });

  it('refuses a data directory that holds another chain', async () => {
    const chain = await Chain.open({ dataDir: dir, genesis: devGenesis() });
    await chain.close();
    await expect(
      Chain.open({ dataDir: dir, genesis: devGenesis({ chainId: 9001n }) }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      Chain.open({ dataDir: dir, genesis: devGenesis({ timestamp: 5n }) }),
    ).rejects.toThrow('another chain');
  });

  it("opens a store of an earlier release's genesis only when it is named as accepted", async () => {
    const earlier = devGenesis({ identityRegistry: false });
    const made = await Chain.open({ dataDir: dir, genesis: earlier });
    const earlierHash = made.getBlockByNumber(0n)!.hashHex;
    await made.close();
    await expect(Chain.open({ dataDir: dir, genesis: devGenesis() })).rejects.toThrow(
      'another chain',
    );
    const chain = await Chain.open({
      dataDir: dir,
      genesis: devGenesis(),
      earlierGeneses: [earlier],
    });
    try {
      expect(chain.getBlockByNumber(0n)!.hashHex).toBe(earlierHash);
      const registry = new Address(hexToBytes(IDENTITY_REGISTRY_ADDRESS));
      expect((await chain.getCode(registry, 0n)).length).toBe(0);
    } finally {
      await chain.close();
    }
  });
});
