/**
 * The events one committed block publishes on the consensus socket, in CometBFT's order:
 * `NewBlock`, `NewBlockHeader`, `NewBlockEvents`, then one `Tx` per transaction.
 *
 * Each event's JSON (`"data":…,"events":…`) is built at most once, and only if some
 * subscription matches it, so a block costs little when nobody listens for its big parts.
 * Each distinct query is matched against an event once, however many clients subscribed it.
 */
import { base64 } from './wire-encoding.js';
import { blockIdJson, blockJson, headerJson } from './block-json.js';
import type { HeaderContext } from './block-json.js';
import type { BlockWithResults } from './block-results.js';
import { execTxResultJson, txFlatEvents, txResultJson } from './tx-json.js';
import type { FlatEvents } from './tx-json.js';

/** The CometBFT event types this node publishes (`tm.event`). */
export type ConsensusEventType = 'NewBlock' | 'NewBlockHeader' | 'NewBlockEvents' | 'Tx' | 'Rewind';

/** One event ready to be matched against subscriptions and sent. */
export interface PublishedEvent {
  type: ConsensusEventType;
  /** What queries match against; also sent as `result.events`. */
  events: FlatEvents;
  /** `"data":{…},"events":{…}`, the event's part of a `result` object. */
  payload(): string;
  /** Whether queries matched `events`, by canonical query text; filled as clients match. */
  readonly matched: Map<string, boolean>;
}

function lazyEvent(
  type: ConsensusEventType,
  events: FlatEvents,
  value: () => Record<string, unknown>,
): PublishedEvent {
  let text: string | undefined;
  return {
    type,
    events,
    matched: new Map(),
    payload: () =>
      (text ??= `"data":${JSON.stringify({ type: `tendermint/event/${type}`, value: value() })},"events":${JSON.stringify(events)}`),
  };
}

/** The events of `block`, in publishing order. */
export function blockEvents(block: BlockWithResults, context: HeaderContext): PublishedEvent[] {
  const { stored, txs } = block;
  const events: PublishedEvent[] = [
    lazyEvent('NewBlock', { 'tm.event': ['NewBlock'] }, () => ({
      block: blockJson(stored, context),
      block_id: blockIdJson(stored.hash),
      result_finalize_block: {
        tx_results: txs.map(execTxResultJson),
        app_hash: base64(stored.block.header.stateRoot),
      },
    })),
    lazyEvent('NewBlockHeader', { 'tm.event': ['NewBlockHeader'] }, () => ({
      header: headerJson(stored, context),
    })),
    lazyEvent('NewBlockEvents', { 'tm.event': ['NewBlockEvents'] }, () => ({
      height: stored.number.toString(),
      events: [],
      num_txs: String(txs.length),
    })),
  ];
  for (const blockTx of txs) {
    events.push(
      lazyEvent('Tx', txFlatEvents(blockTx), () => ({ TxResult: txResultJson(blockTx) })),
    );
  }
  return events;
}

/** What a development rewind (`evm_revert`, `anvil_reset`) announces on the socket. */
export interface RewindFacts {
  /** The head after the rewind. */
  height: bigint;
  /** The head before it. */
  previousHeight: bigint;
  /** The JSON-RPC method that asked for it. */
  cause: string;
}

/**
 * The event of a development rewind, ours (CometBFT has none: its blocks are final):
 * `tm.event='Rewind'`, with `rewind.height`, `rewind.previous_height` and `rewind.cause` to
 * query on; the blocks above `height` are gone and the next `NewBlock` reuses their heights.
 */
export function rewindEvent(facts: RewindFacts): PublishedEvent {
  const value = {
    height: facts.height.toString(),
    previous_height: facts.previousHeight.toString(),
    cause: facts.cause,
  };
  return lazyEvent(
    'Rewind',
    {
      'tm.event': ['Rewind'],
      'rewind.height': [value.height],
      'rewind.previous_height': [value.previous_height],
      'rewind.cause': [value.cause],
    },
    () => value,
  );
}
