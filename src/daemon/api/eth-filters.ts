/**
 * The polling filter methods: eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter.
 */
import { InvalidInputError } from '../../shared/errors.js';
import { parseLogFilter, type LogFilter, type LogFilterObject } from '../events/log-filter.js';
import type { LogQuery } from '../events/log-query.js';
import type { PollingFilters } from '../events/polling-filters.js';
import { callerOf, defineMethod, type MethodDefinition } from '../rpc/registry.js';
import type { JsonSchema } from '../rpc/params.js';
import { logFilterParam, servedLogsJson } from './eth-logs.js';
import { formatLog } from './formatters.js';

const filterIdSchema: JsonSchema = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{1,64}$',
  description: 'a filter id (0x-prefixed hex)',
};
const filterIdParam = { name: 'filterId', schema: filterIdSchema };

const NUMBER = /^0x[0-9a-fA-F]+$/;

/** geth refuses a filter whose explicit bounds are reversed when it is installed. */
function checkBounds(filter: LogFilter): void {
  if (
    filter.kind === 'range' &&
    NUMBER.test(filter.fromBlock) &&
    NUMBER.test(filter.toBlock) &&
    BigInt(filter.fromBlock) > BigInt(filter.toBlock)
  ) {
    throw new InvalidInputError('invalid block range params');
  }
}

/** The filter methods; register them in the `eth` namespace. */
export function ethFilterMethods(filters: PollingFilters, logs: LogQuery): MethodDefinition[] {
  return [
    defineMethod<[LogFilterObject]>({
      name: 'eth_newFilter',
      params: [logFilterParam],
      handler: ([object], context) => {
        const filter = parseLogFilter(object);
        checkBounds(filter);
        return filters.installLogFilter(filter, callerOf(context));
      },
    }),
    defineMethod<[]>({
      name: 'eth_newBlockFilter',
      params: [],
      handler: (_params, context) => filters.installBlockFilter(callerOf(context)),
    }),
    defineMethod<[]>({
      name: 'eth_newPendingTransactionFilter',
      params: [],
      handler: (_params, context) => filters.installPendingTransactionFilter(callerOf(context)),
    }),
    defineMethod<[string]>({
      name: 'eth_getFilterChanges',
      params: [filterIdParam],
      handler: ([id]) => {
        const changes = filters.changes(id);
        return changes.kind === 'logs' ? changes.logs.map(formatLog) : changes.hashes;
      },
    }),
    defineMethod<[string]>({
      name: 'eth_getFilterLogs',
      params: [filterIdParam],
      handler: ([id]) => servedLogsJson(logs.logs(filters.logFilter(id), 'clamp')),
    }),
    defineMethod<[string]>({
      name: 'eth_uninstallFilter',
      params: [filterIdParam],
      handler: ([id]) => filters.uninstall(id),
    }),
  ];
}
