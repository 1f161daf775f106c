/**
 * CometBFT v0.38 JSON of transaction results, and the events a transaction emits.
 *
 * Every EVM transaction emits one `ethereum_tx` event (decisions §6). The CometBFT transaction
 * hash (`tx.hash`, the `tx` route) is the Ethereum transaction hash in upper-case hex, so one
 * hash names a transaction on both interfaces.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { TxResult } from '../chain/types.js';
import { base64, upperHex } from './wire-encoding.js';

/** An ABCI event as CometBFT writes it. */
export interface AbciEvent {
  type: string;
  attributes: Array<{ key: string; value: string; index: boolean }>;
}

/** Flattened events: `"<type>.<attribute>"` to every value, plus `tm.event`, `tx.hash`, ... */
export type FlatEvents = Record<string, string[]>;

/** A transaction of a committed block with its consensus result. */
export interface BlockTx {
  tx: TypedTransaction;
  result: TxResult;
  height: bigint;
}

/** The `ethereum_tx` event of a transaction (decisions §6). */
export function ethereumTxEvent(result: TxResult): AbciEvent {
  const { ethereumTx } = result;
  const attributes: Array<[string, string | undefined]> = [
    ['amount', ethereumTx.amount],
    ['ethereumTxHash', ethereumTx.ethereumTxHash],
    ['txIndex', ethereumTx.txIndex],
    ['txGasUsed', ethereumTx.txGasUsed],
    ['sender', ethereumTx.sender],
    ['recipient', ethereumTx.recipient],
    ['ethereumTxFailed', ethereumTx.ethereumTxFailed],
  ];
  return {
    type: 'ethereum_tx',
    attributes: attributes
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, value]) => ({ key, value, index: true })),
  };
}

/**
 * `ExecTxResult` with Go's `omitempty`: a zero code, empty data and empty log are left out.
 * The log of a failed transaction is its EVM error.
 */
export function execTxResultJson(blockTx: BlockTx): Record<string, unknown> {
  const { result, tx } = blockTx;
  const failure = result.ethereumTx.ethereumTxFailed;
  return {
    ...(result.code === 0 ? {} : { code: result.code }),
    ...(failure === undefined ? {} : { log: failure }),
    gas_wanted: tx.gasLimit.toString(),
    gas_used: result.gasUsed.toString(),
    events: [ethereumTxEvent(result)],
  };
}

/** `TxResult` of an `EventDataTx`: height, index, the raw signed transaction and its result. */
export function txResultJson(blockTx: BlockTx): Record<string, unknown> {
  return {
    height: blockTx.height.toString(),
    index: blockTx.result.index,
    tx: base64(blockTx.tx.serialize()),
    result: execTxResultJson(blockTx),
  };
}

/** A transaction as the `tx` and `tx_search` routes return it. */
export function txResponseJson(blockTx: BlockTx): Record<string, unknown> {
  return {
    hash: upperHex(blockTx.result.hash),
    height: blockTx.height.toString(),
    index: blockTx.result.index,
    tx_result: execTxResultJson(blockTx),
    tx: base64(blockTx.tx.serialize()),
  };
}

/** Flattens events to `"<type>.<attribute>"` → values, skipping empty types and keys like CometBFT. */
export function flattenEvents(events: readonly AbciEvent[], into: FlatEvents = {}): FlatEvents {
  for (const event of events) {
    if (event.type === '') continue;
    for (const attribute of event.attributes) {
      if (attribute.key === '') continue;
      const key = `${event.type}.${attribute.key}`;
      (into[key] ??= []).push(attribute.value);
    }
  }
  return into;
}

/** The flattened events of a `Tx` event, as CometBFT's event bus builds them. */
export function txFlatEvents(blockTx: BlockTx): FlatEvents {
  const events = flattenEvents([ethereumTxEvent(blockTx.result)]);
  events['tm.event'] = ['Tx'];
  events['tx.hash'] = [upperHex(blockTx.result.hash)];
  events['tx.height'] = [blockTx.height.toString()];
  return events;
}
