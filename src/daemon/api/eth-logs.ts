/**
 * `eth_getLogs`, and the JSON schema of the log filter object that `eth_newFilter` and
 * `eth_subscribe('logs')` share with it.
 */
import type { ChainLog } from '../chain/types.js';
import type { LogFilterObject } from '../events/log-filter.js';
import { parseLogFilter } from '../events/log-filter.js';
import type { LogQuery } from '../events/log-query.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';
import type { JsonSchema } from '../rpc/params.js';
import { formatLog } from './formatters.js';
import { addressSchema, blockNumberOrTagSchema, hash32Schema } from './hex-schemas.js';

const nullable = (schema: JsonSchema): JsonSchema => ({
  anyOf: [schema, { type: 'null' }],
  description: `${String(schema.description)}, or null`,
});

const topicSchema: JsonSchema = nullable({
  anyOf: [hash32Schema, { type: 'array', items: nullable(hash32Schema) }],
  description: 'a 32-byte topic, or an array of topics meaning any of them',
});

/**
 * The filter object: fromBlock/toBlock (number or tag), address (one or a list), topics
 * (positional; null is a wildcard, a nested array means "any of"), blockHash (or `blockhash`,
 * the spec's spelling). Unknown fields are ignored, as geth does.
 */
export const logFilterSchema: JsonSchema = {
  type: 'object',
  properties: {
    fromBlock: nullable(blockNumberOrTagSchema),
    toBlock: nullable(blockNumberOrTagSchema),
    address: nullable({
      anyOf: [addressSchema, { type: 'array', items: addressSchema }],
      description: 'an address or an array of addresses',
    }),
    topics: nullable({
      type: 'array',
      items: topicSchema,
      description: 'an array of topic positions',
    }),
    blockHash: nullable(hash32Schema),
    blockhash: nullable(hash32Schema),
  },
  description: 'a log filter object',
};

export const logFilterParam = { name: 'filter', schema: logFilterSchema };

const formattedLogs = new WeakMap<ChainLog, Record<string, unknown>>();

/**
 * `formatLog`, remembered per log object. The chain hands out the same log objects while a
 * block's receipts sit in its cache, and the recent blocks are the ones queried again and again
 * (pollers, dashboards); formatting 10 000 logs costs more than finding them. Weakly held, so
 * entries go with the chain's cache entries.
 */
export function formatLogOnce(log: ChainLog): Record<string, unknown> {
  let formatted = formattedLogs.get(log);
  if (formatted === undefined) {
    formatted = formatLog(log);
    formattedLogs.set(log, formatted);
  }
  return formatted;
}

/** `eth_getLogs`; register in the `eth` namespace. */
export function ethLogMethods(logs: LogQuery): MethodDefinition[] {
  return [
    defineMethod<[LogFilterObject]>({
      name: 'eth_getLogs',
      params: [logFilterParam],
      handler: ([filter]) => logs.logs(parseLogFilter(filter)).map(formatLogOnce),
    }),
  ];
}
