/**
 * `eth_getLogs`, and the JSON schema of the log filter object that `eth_newFilter` and
 * `eth_subscribe('logs')` share with it.
 */
import type { ChainLog } from '../chain/types.js';
import type { LogFilterObject } from '../events/log-filter.js';
import { parseLogFilter } from '../events/log-filter.js';
import type { LogQuery } from '../events/log-query.js';
import type { ServedLog } from '../events/served-logs.js';
import { JsonText } from '../rpc/dispatcher.js';
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

/**
 * A query's logs as the JSON array they are answered with, in pieces: each log's kept JSON and
 * the commas between them. Joined, ten thousand logs would be one string of 5.7 MB per query.
 */
export function servedLogsJson(logs: readonly ServedLog[]): JsonText {
  if (logs.length === 0) return new JsonText(['[]']);
  const pieces = new Array<string>(2 * logs.length + 1);
  pieces[0] = '[';
  logs.forEach((log, index) => {
    pieces[2 * index + 1] = log.json;
    pieces[2 * index + 2] = ',';
  });
  pieces[pieces.length - 1] = ']';
  return new JsonText(pieces);
}

/** How the log readers turn a queried log into JSON-RPC text. */
export function serialiseLog(log: ChainLog): string {
  return JSON.stringify(formatLog(log));
}

/** `eth_getLogs`; register in the `eth` namespace. */
export function ethLogMethods(logs: LogQuery): MethodDefinition[] {
  return [
    defineMethod<[LogFilterObject]>({
      name: 'eth_getLogs',
      params: [logFilterParam],
      handler: ([filter]) => servedLogsJson(logs.logs(parseLogFilter(filter))),
    }),
  ];
}
