/**
 * Human views of blocks, transactions and receipts for the chain commands: which fields an
 * operator reads, in decimal, ether and gwei. `--json` prints the JSON-RPC objects instead.
 */
import { formatEther, formatUnits } from '../shared/units.js';
import type { Block, Hex, Log, Receipt, Transaction } from '../client/eth-client.js';
import { checksumAddress } from '../shared/address.js';
import { colours, keyValueLines, type KeyValue } from './key-value-lines.js';

/** "1.5 ETH (1500000000000000000 wei)" */
export function etherAmount(wei: bigint): string {
  return `${formatEther(wei)} ETH ${colours.dim(`(${wei} wei)`)}`;
}

function gwei(wei: bigint): string {
  return `${formatUnits(wei, 9)} gwei`;
}

function timestamp(seconds: bigint): string {
  return `${seconds} ${colours.dim(`(${new Date(Number(seconds) * 1000).toISOString()})`)}`;
}

function input(data: Hex): string {
  const bytes = (data.length - 2) / 2;
  return bytes === 0 ? colours.dim('none') : `${data} ${colours.dim(`(${bytes} bytes)`)}`;
}

function recipient(to: Hex | null): string {
  return to === null ? colours.dim('none (contract creation)') : checksumAddress(to);
}

/** Header fields of a block, then one line per transaction (hash, or a summary with --full). */
export function blockLines(block: Block): string[] {
  const entries: KeyValue[] = [
    ['number', String(block.number)],
    ['hash', colours.cyan(block.hash)],
    ['parent hash', block.parentHash],
    ['timestamp', timestamp(block.timestamp)],
    ['miner', checksumAddress(block.miner)],
    [
      'gas used',
      block.gasUsed === null
        ? `unknown of ${block.gasLimit}`
        : `${block.gasUsed} of ${block.gasLimit}`,
    ],
  ];
  if (block.baseFeePerGas !== undefined) entries.push(['base fee', gwei(block.baseFeePerGas)]);
  entries.push(
    ['size', `${block.size} bytes`],
    ['state root', block.stateRoot],
    ['transactions', String(block.transactions.length)],
  );
  return [
    ...keyValueLines(entries),
    ...block.transactions.map((entry) =>
      typeof entry === 'string'
        ? `  ${entry}`
        : `  ${entry.hash}  ${checksumAddress(entry.from)} -> ${entry.to === null ? 'create' : checksumAddress(entry.to)}  ${formatEther(entry.value)} ETH`,
    ),
  ];
}

/** Block position, parties, value and fees of a transaction. */
export function transactionLines(tx: Transaction): string[] {
  const entries: KeyValue[] = [
    ['hash', colours.cyan(tx.hash)],
    [
      'block',
      tx.blockNumber === null
        ? colours.yellow('pending')
        : `${tx.blockNumber} ${colours.dim(`(${tx.blockHash}, index ${tx.transactionIndex})`)}`,
    ],
    ['from', checksumAddress(tx.from)],
    ['to', recipient(tx.to)],
    ['value', etherAmount(tx.value)],
    ['nonce', String(tx.nonce)],
    ['gas limit', String(tx.gas)],
    ['gas price', gwei(tx.gasPrice)],
  ];
  if (tx.maxFeePerGas !== undefined) entries.push(['max fee', gwei(tx.maxFeePerGas)]);
  if (tx.maxPriorityFeePerGas !== undefined)
    entries.push(['max priority fee', gwei(tx.maxPriorityFeePerGas)]);
  if (tx.type !== undefined) entries.push(['type', String(tx.type)]);
  if (tx.chainId !== undefined) entries.push(['chain id', String(tx.chainId)]);
  entries.push(['input', input(tx.input)]);
  return keyValueLines(entries);
}

function logLines(log: Log): string[] {
  return keyValueLines(
    [
      ['address', checksumAddress(log.address)],
      ...log.topics.map((topic, index): KeyValue => [`topic ${index}`, topic]),
      ['data', input(log.data)],
    ],
    '    ',
  );
}

/** Outcome, gas and logs of a receipt. */
export function receiptLines(receipt: Receipt): string[] {
  const entries: KeyValue[] = [
    ['transaction', colours.cyan(receipt.transactionHash)],
    ['status', receipt.status === 1 ? colours.green('success (1)') : colours.red('failed (0)')],
    [
      'block',
      `${receipt.blockNumber} ${colours.dim(`(${receipt.blockHash}, index ${receipt.transactionIndex})`)}`,
    ],
    ['from', checksumAddress(receipt.from)],
    ['to', recipient(receipt.to)],
  ];
  if (receipt.contractAddress !== null)
    entries.push(['contract', checksumAddress(receipt.contractAddress)]);
  entries.push(['gas used', String(receipt.gasUsed)]);
  if (receipt.cumulativeGasUsed !== null)
    entries.push(['cumulative gas', String(receipt.cumulativeGasUsed)]);
  if (receipt.effectiveGasPrice !== undefined)
    entries.push(['gas price', gwei(receipt.effectiveGasPrice)]);
  if (receipt.type !== undefined) entries.push(['type', String(receipt.type)]);
  entries.push(['logs', String(receipt.logs.length)]);
  return [
    ...keyValueLines(entries),
    ...receipt.logs.flatMap((log) => [`  log ${log.logIndex}`, ...logLines(log)]),
  ];
}
