/** Builds block 0 and its state from a genesis configuration. */
import { createBlock, genRequestsRoot } from '@ethereumjs/block';
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import {
  Address,
  KECCAK256_RLP,
  createAccount,
  createZeroAddress,
  hexToBytes,
  setLengthLeft,
} from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';
import { openTrie } from './chain-reader.js';
import type { GenesisConfig } from '../../shared/genesis-file.js';
import { TrieNodeOverlay } from './trie-node-overlay.js';

/**
 * Writes the genesis allocation into `stateManager` (whose trie database collects the nodes)
 * and returns the genesis block. The header carries every field Prague requires, so its hash
 * is keccak256 of an Ethereum-style header like every later block.
 */
export async function buildGenesisBlock(
  common: Common,
  genesis: GenesisConfig,
  stateManager: MerkleStateManager,
): Promise<Block> {
  for (const [addressHex, account] of genesis.alloc) {
    const address = new Address(hexToBytes(addressHex as PrefixedHexString));
    await stateManager.putAccount(
      address,
      createAccount({ nonce: account.nonce ?? 0n, balance: account.balance }),
    );
    if (account.code !== undefined && account.code.length > 0) {
      await stateManager.putCode(address, account.code);
    }
    for (const [slot, value] of Object.entries(account.storage ?? {})) {
      const word = hexToBytes(value as PrefixedHexString);
      if (word.some((b) => b !== 0)) {
        await stateManager.putStorage(
          address,
          setLengthLeft(hexToBytes(slot as PrefixedHexString), 32),
          word,
        );
      }
    }
  }
  const stateRoot = await stateManager.getStateRoot();
  return createBlock(
    {
      header: {
        number: 0n,
        gasLimit: genesis.gasLimit,
        timestamp: genesis.timestamp,
        extraData: genesis.extraData ?? new Uint8Array(),
        coinbase: genesis.coinbase ?? createZeroAddress(),
        stateRoot,
        baseFeePerGas: genesis.minGasPrice,
        withdrawalsRoot: KECCAK256_RLP,
        blobGasUsed: 0n,
        excessBlobGas: 0n,
        parentBeaconBlockRoot: new Uint8Array(32),
        requestsHash: genRequestsRoot([], common.customCrypto.sha256!),
      },
      withdrawals: [],
    },
    { common },
  );
}

/** The hash of the genesis block `genesis` gives, built in memory. */
export async function genesisBlockHash(
  common: Common,
  genesis: GenesisConfig,
): Promise<Uint8Array> {
  const overlay = new TrieNodeOverlay(() => undefined);
  const state = new MerkleStateManager({ trie: openTrie(common, overlay), common });
  return (await buildGenesisBlock(common, genesis, state)).hash();
}
