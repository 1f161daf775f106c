/**
 * `tx_search`: committed transactions whose `Tx` events match a query, paginated like
 * CometBFT (`page` from 1, `per_page` default 30 and at most 100, `order_by` asc or desc by
 * height and index).
 *
 * There is no transaction index by event, so the search scans blocks. The scan is bounded:
 * it covers the most recent {@link TX_SEARCH_MAX_BLOCKS} blocks of the height range the query
 * allows. Conditions on `tx.height` (`=`, `<`, `<=`, `>`, `>=`) narrow that range first, so
 * `tx.height = 5` reads one block however long the chain is.
 */
import { InvalidInputError } from '../../shared/errors.js';
import type { Query } from '../events/query/index.js';
import type { BlockResults } from './block-results.js';
import { txFlatEvents } from './tx-json.js';
import type { BlockTx } from './tx-json.js';

/** Most blocks one `tx_search` reads. */
export const TX_SEARCH_MAX_BLOCKS = 10_000;
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

export interface TxSearchRequest {
  query: Query;
  page?: number;
  perPage?: number;
  orderBy?: string;
}

export interface TxSearchResult {
  txs: BlockTx[];
  totalCount: number;
}

/** Heights `[from, to]` the query's `tx.height` conditions allow, within `[1, head]`. */
export function heightRange(query: Query, head: bigint): { from: bigint; to: bigint } {
  let from = 1n;
  let to = head;
  for (const condition of query.conditions) {
    if (condition.key !== 'tx.height' || condition.operator === 'EXISTS') continue;
    if (condition.operator === 'CONTAINS' || condition.operand.kind !== 'number') continue;
    const { units, scale } = condition.operand.value;
    if (scale !== 0) continue;
    switch (condition.operator) {
      case '=':
        from = from > units ? from : units;
        to = to < units ? to : units;
        break;
      case '>':
        from = from > units + 1n ? from : units + 1n;
        break;
      case '>=':
        from = from > units ? from : units;
        break;
      case '<':
        to = to < units - 1n ? to : units - 1n;
        break;
      case '<=':
        to = to < units ? to : units;
        break;
    }
  }
  return { from, to };
}

function orderOf(orderBy: string | undefined): 'asc' | 'desc' {
  if (orderBy === undefined || orderBy === '' || orderBy === 'asc') return 'asc';
  if (orderBy === 'desc') return 'desc';
  throw new InvalidInputError('expected order_by to be either `asc` or `desc` or empty');
}

export function searchTransactions(
  blocks: BlockResults,
  head: bigint,
  request: TxSearchRequest,
): TxSearchResult {
  const order = orderOf(request.orderBy);
  const perPage =
    request.perPage === undefined || request.perPage < 1
      ? DEFAULT_PER_PAGE
      : Math.min(request.perPage, MAX_PER_PAGE);
  const { from, to } = heightRange(request.query, head);
  const lowest =
    to - BigInt(TX_SEARCH_MAX_BLOCKS) + 1n > from ? to - BigInt(TX_SEARCH_MAX_BLOCKS) + 1n : from;
  const matched: BlockTx[] = [];
  for (let height = lowest; height <= to; height++) {
    const block = blocks.at(height);
    if (block === undefined) break;
    for (const blockTx of block.txs) {
      if (request.query.matches(txFlatEvents(blockTx))) matched.push(blockTx);
    }
  }
  if (order === 'desc') matched.reverse();
  const pages = Math.max(1, Math.ceil(matched.length / perPage));
  const page = request.page ?? 1;
  if (page < 1 || page > pages) {
    throw new InvalidInputError(`page should be within [1, ${pages}] range, given ${page}`);
  }
  return {
    txs: matched.slice((page - 1) * perPage, page * perPage),
    totalCount: matched.length,
  };
}
