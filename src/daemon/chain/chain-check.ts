/**
 * `daemon check`: a read-only walk of a data directory's chain store that recomputes what can
 * be recomputed and reports every disagreement, in the spirit of `geth db inspect` and
 * `cometbft debug`.
 *
 * Per block: the record decodes, each stored sender is its transaction's signer, its header hash is the one the hash index and the next
 * block's parent link name, the transactions root and the receipts root recomputed from the
 * stored bodies and receipts equal the header's, and each transaction's location index points
 * back at it. State: every node reachable from a block's state root (account trie, storage
 * tries, contract code) is present and hashes to its key; the head, the genesis and a few
 * blocks between by default, every block with `full` (nodes shared between roots are walked
 * once). Then the log index against the chain.
 *
 * It opens the stores read-only, so it may run beside the daemon: LMDB gives a reader a
 * consistent snapshot and never blocks the writer, and committed blocks and trie nodes are never
 * rewritten, so blocks the daemon commits meanwhile are simply not looked at.
 */
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  KECCAK256_NULL,
  KECCAK256_RLP,
  bytesToHex,
  bytesToUnprefixedHex,
  equalsBytes,
} from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';
import { encodeReceipt } from '@ethereumjs/vm';
import type { CheckReport } from '../../shared/check-report.js';
import { dataDirLayout } from '../../shared/datadir-layout.js';
import { initCrypto, keccak256 } from '../crypto/wasm-crypto.js';
import { checkLogIndex } from '../events/log-index.js';
import { decodeBlockRecord } from './block-record.js';
import { createChainCommon } from './common.js';
import { compareFlatState } from './flat-state.js';
import { genesisBlockHash } from './genesis-block.js';
import { loadGenesis } from './genesis-source.js';
import { isImpersonationSignature } from './impersonation-signature.js';
import { lmdbFileProblem } from './lmdb-file.js';
import { OrderedTrieRoot } from './ordered-trie-root.js';
import { decodeReceipts, receiptsOfBlock } from './receipt-codec.js';
import { ChainStore } from './store.js';
import { chainDataFile } from './store-integrity.js';
import type { ChainReceipt, StoredBlock } from './types.js';

/** State roots walked without `full`: the head, the genesis and this many blocks between. */
const SAMPLED_STATE_ROOTS = 8;
/** `keccak256('c' ‖ codeHash)`: MerkleStateManager keeps code under the prefixed code hash. */
const CODE_KEY_PREFIX = '63';

function sampledBlocks(head: number, full: boolean): number[] {
  if (full) return Array.from({ length: head + 1 }, (_, n) => n);
  const picked = new Set([0, head]);
  const step = Math.max(1, Math.floor(head / (SAMPLED_STATE_ROOTS + 1)));
  for (let n = step; n < head && picked.size < SAMPLED_STATE_ROOTS + 2; n += step) picked.add(n);
  return [...picked].sort((a, b) => a - b);
}

type RlpNode = Uint8Array | RlpNode[];

/** Walks tries from their roots, each node once, checking presence and content hash. */
class TrieWalker {
  readonly visited = new Set<string>();

  constructor(private readonly readNode: (key: string) => Uint8Array | undefined) {}

  /** Problems of the trie at `root`; `accounts` when its leaves are accounts. */
  walk(root: Uint8Array, accounts: boolean, problems: string[]): void {
    if (equalsBytes(root, KECCAK256_RLP)) return;
    this.visitHash(root, accounts, problems);
  }

  private visitHash(hash: Uint8Array, accounts: boolean, problems: string[]): void {
    const key = bytesToUnprefixedHex(hash);
    if (this.visited.has(key)) return;
    this.visited.add(key);
    const encoded = this.readNode(key);
    if (encoded === undefined) {
      problems.push(`trie node ${bytesToHex(hash)} is missing`);
      return;
    }
    if (!equalsBytes(keccak256(encoded), hash)) {
      problems.push(`trie node ${bytesToHex(hash)} does not hash to its key`);
      return;
    }
    let node: RlpNode;
    try {
      node = RLP.decode(encoded) as RlpNode;
    } catch {
      problems.push(`trie node ${bytesToHex(hash)} is not RLP`);
      return;
    }
    this.visitNode(node, accounts, problems);
  }

  private visitChild(child: RlpNode, accounts: boolean, problems: string[]): void {
    if (child instanceof Uint8Array) {
      if (child.length === 32) this.visitHash(child, accounts, problems);
    } else if (child.length > 0) this.visitNode(child, accounts, problems);
  }

  private visitNode(node: RlpNode, accounts: boolean, problems: string[]): void {
    if (!Array.isArray(node)) return;
    if (node.length === 17) {
      for (const child of node.slice(0, 16)) this.visitChild(child, accounts, problems);
      return;
    }
    if (node.length !== 2 || !(node[0] instanceof Uint8Array)) {
      problems.push('trie node of unknown shape');
      return;
    }
    // Hex-prefix encoding: the high nibble's bit 1 marks a leaf.
    const isLeaf = (node[0][0] >> 4) & 2;
    if (!isLeaf) this.visitChild(node[1], accounts, problems);
    else if (accounts && node[1] instanceof Uint8Array) this.visitAccount(node[1], problems);
  }

  private visitAccount(encoded: Uint8Array, problems: string[]): void {
    const [, , storageRoot, codeHash] = RLP.decode(encoded) as Uint8Array[];
    this.walk(storageRoot, false, problems);
    if (equalsBytes(codeHash, KECCAK256_NULL)) return;
    const key = CODE_KEY_PREFIX + bytesToUnprefixedHex(codeHash);
    if (this.visited.has(key)) return;
    this.visited.add(key);
    const code = this.readNode(key);
    if (code === undefined) problems.push(`contract code ${bytesToHex(codeHash)} is missing`);
    else if (!equalsBytes(keccak256(code), codeHash)) {
      problems.push(`contract code ${bytesToHex(codeHash)} does not hash to its key`);
    }
  }
}

/**
 * Hashes of the genesis blocks the daemon accepts for this data directory: the configured one
 * first, then those of earlier releases.
 */
async function acceptedGenesisHashes(dataDir: string, common: Common, chainId: bigint) {
  const { genesis, earlier } = loadGenesis(dataDirLayout(dataDir), Number(chainId));
  return Promise.all([genesis, ...earlier].map((config) => genesisBlockHash(common, config)));
}

class BlockChecker {
  private readonly trieRoot = new OrderedTrieRoot(keccak256);

  constructor(
    private readonly store: ChainStore,
    private readonly common: Common,
    private readonly report: (problem: string) => void,
  ) {}

  /** Decodes and checks block `number`; its stored form, or undefined when unreadable. */
  check(number: number, parentHash: Uint8Array | undefined): StoredBlock | undefined {
    const record = this.store.blockRecord(number);
    if (record === undefined) return this.fail('block record is missing');
    let stored: StoredBlock;
    try {
      stored = decodeBlockRecord(record, this.common);
    } catch (error) {
      return this.fail(`block record does not decode: ${(error as Error).message}`);
    }
    const { header, transactions } = stored.block;
    if (this.store.blockNumberOf(stored.hash) !== number) {
      this.report(`header hash ${stored.hashHex} is not indexed at this height`);
    }
    if (parentHash !== undefined && !equalsBytes(header.parentHash, parentHash)) {
      this.report(`parent hash ${bytesToHex(header.parentHash)} is not block ${number - 1}'s`);
    }
    const txRoot = this.trieRoot.ofList(transactions.map((tx) => tx.serialize()));
    if (!equalsBytes(txRoot, header.transactionsTrie)) {
      this.report('transactions root recomputed from the body differs from the header');
    }
    transactions.forEach((tx, index) => {
      // The stored sender is served as `from` without recovery; it must be the signer.
      if (!this.signedBy(tx, stored.senders[index])) {
        this.report(`stored sender of transaction ${index} is not its signer`);
      }
      const location = this.store.txLocation(tx.hash());
      if (location?.blockNumber !== number || location.index !== index) {
        this.report(`transaction ${bytesToHex(tx.hash())} is not indexed at its position`);
      }
    });
    this.checkReceipts(stored);
    return stored;
  }

  private signedBy(tx: TypedTransaction, sender: Address): boolean {
    if (isImpersonationSignature(tx, sender)) return true;
    try {
      return sender.equals(tx.getSenderAddress());
    } catch {
      return false;
    }
  }

  private checkReceipts(stored: StoredBlock): void {
    const encoded = this.store.receiptsRlp(Number(stored.number));
    if (encoded === undefined) return void this.report('receipts are missing');
    let records;
    try {
      records = decodeReceipts(encoded);
    } catch (error) {
      return void this.report(`receipts do not decode: ${(error as Error).message}`);
    }
    const { transactions, header } = stored.block;
    if (records.length !== transactions.length) {
      return void this.report(`${records.length} receipts for ${transactions.length} transactions`);
    }
    const receiptRoot = this.trieRoot.ofList(
      records.map((r, index) =>
        encodeReceipt(
          {
            status: r.status,
            cumulativeBlockGasUsed: r.cumulativeGasUsed,
            bitvector: r.logsBloom,
            logs: r.logs,
          },
          transactions[index].type,
        ),
      ),
    );
    if (!equalsBytes(receiptRoot, header.receiptTrie)) {
      this.report('receipts root recomputed from the stored receipts differs from the header');
    }
  }

  private fail(problem: string): undefined {
    this.report(problem);
    return undefined;
  }
}

/**
 * Compares the head's flat state tables with its trie. A store without them (written before
 * they existed) is fine: the daemon builds them at its next start. The head is read again here,
 * in the same synchronous step as the tables: a daemon committing blocks meanwhile moves both.
 */
function checkFlatState(store: ChainStore, common: Common, report: CheckReport): void {
  const head = store.head();
  const record = head === undefined ? undefined : store.blockRecord(head.number);
  if (head === undefined || record === undefined || store.flatStateRoot() === undefined) return;
  const problem = (what: string) =>
    report.problems.push({ block: head.number, problem: `flat state: ${what}` });
  try {
    const stateRoot = decodeBlockRecord(record, common).block.header.stateRoot;
    const compared = compareFlatState(store, stateRoot);
    report.flatState = { accounts: compared.accounts, slots: compared.slots };
    compared.differences.forEach(problem);
  } catch (error) {
    // An undecodable block or a missing trie node: the walk reports it as well.
    problem((error as Error).message);
  }
}

/** Checks the chain store and log index of `dataDir`; never writes to them. */
export async function checkChainStore(
  dataDir: string,
  options: { full?: boolean } = {},
): Promise<CheckReport> {
  const report: CheckReport = {
    dataDir,
    blocksChecked: 0,
    stateRootsChecked: [],
    trieNodesChecked: 0,
    logIndexHeight: -1,
    problems: [],
  };
  const file = chainDataFile(dataDir);
  const fileProblem = lmdbFileProblem(file);
  if (fileProblem !== undefined) {
    report.problems.push({ problem: `chain store ${file} ${fileProblem}` });
    return report;
  }
  await initCrypto();
  const store = ChainStore.open(dataDir, { readOnly: true });
  try {
    await walkStore(store, dataDir, options.full === true, report);
  } finally {
    await store.close();
  }
  return report;
}

async function walkStore(
  store: ChainStore,
  dataDir: string,
  full: boolean,
  report: CheckReport,
): Promise<void> {
  const identity = store.identity();
  const head = store.head();
  if (identity === undefined || head === undefined) {
    report.problems.push({ problem: 'the chain store holds no chain (no identity or head)' });
    return;
  }
  report.head = head.number;
  const common = createChainCommon(identity.chainId);
  const accepted = await acceptedGenesisHashes(dataDir, common, identity.chainId);
  if (!accepted.some((hash) => equalsBytes(hash, identity.genesisHash))) {
    report.problems.push({
      problem: `the store's genesis ${bytesToHex(identity.genesisHash)} is not the configured ${bytesToHex(accepted[0]!)}`,
    });
  }
  const blocks: Array<StoredBlock | undefined> = [];
  let current = 0;
  const checker = new BlockChecker(store, common, (problem) =>
    report.problems.push({ block: current, problem }),
  );
  for (current = 0; current <= head.number; current++) {
    blocks.push(checker.check(current, blocks[current - 1]?.hash));
    report.blocksChecked++;
  }
  const headBlock = blocks[head.number];
  if (headBlock !== undefined && !equalsBytes(headBlock.hash, head.hash)) {
    report.problems.push({ block: head.number, problem: 'head block hash differs from the head' });
  }
  if (blocks[0] !== undefined && !equalsBytes(blocks[0].hash, identity.genesisHash)) {
    report.problems.push({ block: 0, problem: 'block 0 is not the genesis the store records' });
  }

  const walker = new TrieWalker(store.readTrieNode);
  for (const number of sampledBlocks(head.number, full)) {
    const block = blocks[number];
    if (block === undefined) continue;
    const problems: string[] = [];
    walker.walk(block.block.header.stateRoot, true, problems);
    for (const problem of problems) report.problems.push({ block: number, problem });
    report.stateRootsChecked.push(number);
  }
  report.trieNodesChecked = walker.visited.size;
  checkFlatState(store, common, report);

  // Blocks the daemon commits while the check runs are read from the store as they come.
  const blockAt = (number: number): StoredBlock | undefined => {
    if (blocks[number] !== undefined) return blocks[number];
    const record = store.blockRecord(number);
    if (record === undefined) return undefined;
    try {
      return decodeBlockRecord(record, common);
    } catch {
      return undefined;
    }
  };
  const receiptsOf = (number: number): ChainReceipt[] | undefined => {
    const block = blockAt(number);
    const encoded = store.receiptsRlp(number);
    if (block === undefined || encoded === undefined) return undefined;
    try {
      return receiptsOfBlock(block, decodeReceipts(encoded));
    } catch {
      return undefined;
    }
  };
  const index = await checkLogIndex(dataDirLayout(dataDir).logIndexDir, {
    head: () => {
      store.startFreshSnapshot();
      return store.head()?.number ?? head.number;
    },
    hashHexOf: (number) => blockAt(number)?.hashHex,
    receiptsOf,
  });
  report.logIndexHeight = index.height;
  for (const problem of index.problems) {
    report.problems.push({ problem: `${problem} (derived data: the daemon rebuilds it at start)` });
  }
}
