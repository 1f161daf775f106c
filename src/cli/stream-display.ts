/**
 * One line per streamed item for `logs watch` and `events tail`: a coloured human line, or a
 * JSON object per line with `--json` (JSON Lines, so a consumer can read it as it arrives).
 */
import type { ConsensusEvent } from '../client/consensus-ws-client.js';
import type { DecodedEvent, DecodedValue } from './event-abi.js';
import { checksumAddress, isAddress } from '../shared/address.js';
import { withChecksummedAddresses } from './json-conventions.js';
import { colours } from './key-value-lines.js';
import type { RpcLog } from './log-watcher.js';

/** A log in `--json` output: its JSON-RPC fields, plus `event` when the ABI decoded it. */
export type LogJson = RpcLog & { event?: { name: string; args: Record<string, DecodedValue> } };

function short(hash: string): string {
  return `${hash.slice(0, 10)}…${hash.slice(-4)}`;
}

function argText(value: DecodedValue): string {
  return Array.isArray(value) ? `[${value.map(argText).join(', ')}]` : JSON.stringify(value);
}

/** The `--json` object of a log. */
export function logJson(log: RpcLog, event: DecodedEvent | undefined): LogJson {
  const checksummed = withChecksummedAddresses(log);
  return event === undefined
    ? checksummed
    : { ...checksummed, event: { name: event.name, args: event.args } };
}

/** `#12 0x1234abcd…ef01 0xAddress ValueSet(who="0x…", value="7")`, or topics and data. */
export function logLine(log: RpcLog, event: DecodedEvent | undefined): string {
  const position = `${colours.bold(`#${BigInt(log.blockNumber)}`)} ${colours.cyan(short(log.transactionHash))} ${checksumAddress(log.address)}`;
  const removed = log.removed ? ` ${colours.red('(removed)')}` : '';
  if (event === undefined)
    return `${position} ${colours.dim(`topics=[${log.topics.join(', ')}] data=${log.data}`)}${removed}`;
  const args = Object.entries(event.args)
    .map(([name, value]) => `${name}=${argText(value)}`)
    .join(', ');
  return `${position} ${colours.green(event.name)}(${args})${removed}`;
}

/** The `--json` object of a consensus event. */
export function consensusEventJson(event: ConsensusEvent): ConsensusEvent {
  return { query: event.query, type: event.type, value: event.value, events: event.events };
}

function first(event: ConsensusEvent, key: string): string | undefined {
  return event.events[key]?.[0];
}

/** The block height an event belongs to, when it carries one. */
export function eventHeight(event: ConsensusEvent): bigint | undefined {
  const height = heightOf(event);
  return height !== undefined && /^\d+$/.test(height) ? BigInt(height) : undefined;
}

function heightOf(event: ConsensusEvent): string | undefined {
  const value = event.value as {
    block?: { header?: { height?: string } };
    header?: { height?: string };
    height?: string;
    TxResult?: { height?: string };
  } | null;
  return (
    value?.block?.header?.height ??
    value?.header?.height ??
    value?.height ??
    value?.TxResult?.height ??
    first(event, 'tx.height')
  );
}

function displayAddress(text: string): string {
  return isAddress(text) ? checksumAddress(text) : text;
}

/** `NewBlock height=5 txs=2`, or for a `Tx` event its hash, parties, amount and outcome. */
export function consensusEventLine(event: ConsensusEvent): string {
  const kind = first(event, 'tm.event') ?? event.type.replace(/^tendermint\/event\//, '');
  const parts = [colours.bold(kind)];
  const height = heightOf(event);
  if (height !== undefined) parts.push(`height=${height}`);
  if (kind === 'NewBlock') {
    const txs = (event.value as { block?: { data?: { txs?: unknown[] } } } | null)?.block?.data
      ?.txs;
    if (txs !== undefined) parts.push(`txs=${txs.length}`);
  }
  if (kind === 'Tx') {
    const hash = first(event, 'ethereum_tx.ethereumTxHash') ?? first(event, 'tx.hash');
    if (hash !== undefined) parts.push(colours.cyan(hash));
    const sender = first(event, 'ethereum_tx.sender');
    const recipient = first(event, 'ethereum_tx.recipient');
    if (sender !== undefined)
      parts.push(
        `${displayAddress(sender)} -> ${recipient === undefined ? 'create' : displayAddress(recipient)}`,
      );
    const amount = first(event, 'ethereum_tx.amount');
    if (amount !== undefined) parts.push(`amount=${amount}`);
    const failure = first(event, 'ethereum_tx.ethereumTxFailed');
    parts.push(failure === undefined ? colours.green('ok') : colours.red(`failed: ${failure}`));
  }
  return parts.join(' ');
}
