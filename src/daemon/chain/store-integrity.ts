/**
 * What the node checks of its chain store at start, so that damage is refused with a message
 * instead of a signal death or, worse, a new chain over an old one.
 *
 * Before lmdb maps the file: does the data directory already hold a chain (the marker written
 * after its genesis, or the node key of a directory from before the marker), and is
 * `chain/data.mdb` then present, non-empty and as long as its LMDB header says. After opening:
 * the head block decodes, its state root is in the node table, and block 0 is the genesis the
 * store and the marker name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, bytesToUnprefixedHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { PrefixedHexString } from '@ethereumjs/util';
import { dataDirLayout } from '../../shared/datadir-layout.js';
import { writeFileAtomic } from '../../shared/atomic-write.js';
import { DamagedStoreError } from '../../shared/errors.js';
import { decodeBlockRecord } from './block-record.js';
import { LMDB_FILE_EMPTY, LMDB_FILE_MISSING, lmdbFileProblem } from './lmdb-file.js';
import type { ChainIdentity, ChainStore } from './store.js';
import type { StoredBlock } from './types.js';

/** Path of the chain store's LMDB data file in a data directory. */
export function chainDataFile(dataDir: string): string {
  return join(dataDirLayout(dataDir).chainDir, 'data.mdb');
}

/** The refusal of a damaged chain store: names the file, what is wrong and what to do. */
export function damagedStoreError(dataDir: string, what: string): DamagedStoreError {
  const file = chainDataFile(dataDir);
  return new DamagedStoreError(
    `chain store ${file} ${what}. Restore the data directory from a backup, or start a new ` +
      `chain in a new data directory (node-cli daemon init / daemon start --datadir <new>); ` +
      `node-cli daemon check --datadir ${dataDir} lists what is damaged`,
  );
}

interface ChainMarker {
  genesisHash: string;
  chainId: string;
}

function readMarker(dataDir: string): ChainMarker | undefined {
  const file = dataDirLayout(dataDir).chainMarkerFile;
  if (!existsSync(file)) return undefined;
  try {
    const marker = JSON.parse(readFileSync(file, 'utf8')) as ChainMarker;
    if (typeof marker.genesisHash === 'string' && typeof marker.chainId === 'string') return marker;
  } catch {
    // Reported below like any other unreadable marker.
  }
  throw new DamagedStoreError(`${file} is not readable JSON; restore it or the data directory`);
}

/** Whether the data directory has held a chain before (then its store must be there). */
export function holdsChain(dataDir: string): boolean {
  const layout = dataDirLayout(dataDir);
  return existsSync(layout.chainMarkerFile) || existsSync(layout.nodeKeyFile);
}

/**
 * Refuses a store that must not be mapped: missing or empty in a data directory that holds a
 * chain, or present with a damaged or truncated header. Throws `DamagedStoreError`.
 */
export function checkStoreFile(dataDir: string): void {
  const file = chainDataFile(dataDir);
  const problem = lmdbFileProblem(file);
  if (problem === undefined) return;
  const fresh = problem === LMDB_FILE_MISSING || problem === LMDB_FILE_EMPTY;
  if (fresh && !holdsChain(dataDir)) return;
  throw damagedStoreError(dataDir, problem);
}

/** Decodes a stored block, reporting damage as `DamagedStoreError`. */
function readBlock(
  store: ChainStore,
  dataDir: string,
  number: number,
  common: Common,
): StoredBlock {
  const record = store.blockRecord(number);
  if (record === undefined) throw damagedStoreError(dataDir, `has no block ${number}`);
  try {
    return decodeBlockRecord(record, common);
  } catch (error) {
    throw damagedStoreError(
      dataDir,
      `holds an undecodable block ${number} (${(error as Error).message})`,
    );
  }
}

/**
 * Checks an opened store that holds a chain: the head block is there and whole, its state root
 * resolves, block 0 is the store's genesis and the one the marker names. Writes the marker when
 * it is missing (a chain just created, or a directory from before the marker).
 */
export function checkOpenedStore(
  store: ChainStore,
  dataDir: string,
  common: Common,
  identity: ChainIdentity,
): void {
  const head = store.head();
  if (head === undefined) throw damagedStoreError(dataDir, 'has no head block');
  const headBlock = readBlock(store, dataDir, head.number, common);
  if (!equalsBytes(headBlock.hash, head.hash)) {
    throw damagedStoreError(
      dataDir,
      `holds a head block ${head.number} whose hash is not the head's`,
    );
  }
  if (store.readTrieNode(bytesToUnprefixedHex(headBlock.block.header.stateRoot)) === undefined) {
    throw damagedStoreError(dataDir, `lacks the state root of head block ${head.number}`);
  }
  const genesis = readBlock(store, dataDir, 0, common);
  if (!equalsBytes(genesis.hash, identity.genesisHash)) {
    throw damagedStoreError(dataDir, `holds a block 0 that is not the genesis it records`);
  }
  const marker = readMarker(dataDir);
  const genesisHex = bytesToHex(identity.genesisHash);
  if (marker === undefined) {
    const content: ChainMarker = { genesisHash: genesisHex, chainId: identity.chainId.toString() };
    writeFileAtomic(dataDirLayout(dataDir).chainMarkerFile, `${JSON.stringify(content)}\n`);
  } else if (
    !equalsBytes(hexToBytes(marker.genesisHash as PrefixedHexString), identity.genesisHash)
  ) {
    throw damagedStoreError(
      dataDir,
      `holds genesis ${genesisHex}, but this data directory was created for genesis ${marker.genesisHash}`,
    );
  }
}
