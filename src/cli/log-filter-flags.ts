/**
 * The log filter of `logs watch` from its flags (`--address`, `--topic`, `--topics`,
 * `--from-block`), checked before anything reaches the node. A bad value is a usage error
 * (exit 2) naming the value and the expected form.
 */
import { Errors } from '@oclif/core';
import type { Hex } from '../client/eth-client.js';
import { parseAddress } from './chain-args.js';

const TOPIC = /^0x[0-9a-fA-F]{64}$/;
const BLOCK_NUMBER = /^(\d{1,20}|0x[0-9a-fA-F]{1,16})$/;
/** Logs carry at most four topics (LOG0 to LOG4). */
const MAX_TOPIC_POSITIONS = 4;

/** One topic position: a topic, any of several, or `null` for any topic. */
export type TopicPosition = Hex | Hex[] | null;

/** The `address`/`topics` part of an eth_subscribe or eth_getLogs filter object. */
export interface LogCriteria {
  address?: Hex[];
  topics?: TopicPosition[];
}

function usage(message: string): Errors.CLIError {
  return new Errors.CLIError(message, { exit: 2 });
}

function parseTopic(text: string): Hex {
  if (!TOPIC.test(text))
    throw usage(`invalid topic "${text}": expected 0x followed by 64 hex digits`);
  return text.toLowerCase() as Hex;
}

/** A `--topic` value: a 32-byte topic, or `null` (also `*`) for any topic at this position. */
export function parseTopicFlag(text: string): Hex | null {
  return text === 'null' || text === '*' ? null : parseTopic(text);
}

/** A `--topics` value: the JSON-RPC `topics` array, e.g. `[null, ["0x…", "0x…"]]`. */
export function parseTopicsJson(text: string): TopicPosition[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw usage(`invalid --topics "${text}": not JSON`);
  }
  if (!Array.isArray(parsed))
    throw usage(`invalid --topics "${text}": expected a JSON array of topics`);
  return parsed.map((position: unknown): TopicPosition => {
    if (position === null) return null;
    if (typeof position === 'string') return parseTopic(position);
    if (Array.isArray(position) && position.every((entry) => typeof entry === 'string'))
      return position.map((entry: string) => parseTopic(entry));
    throw usage(
      `invalid --topics "${text}": each position must be null, a topic or a list of topics`,
    );
  });
}

/** A `--from-block` value: a block number, decimal or 0x-hex. */
export function parseBlockNumber(text: string): bigint {
  if (!BLOCK_NUMBER.test(text))
    throw usage(`invalid block number "${text}": expected a decimal or 0x-hex number`);
  return BigInt(text);
}

/** Combines the flags into filter criteria; addresses come back checksummed. */
export function logCriteria(flags: {
  address?: string[];
  topic?: (Hex | null)[];
  topics?: TopicPosition[];
}): LogCriteria {
  const topics = flags.topics ?? flags.topic;
  if (topics !== undefined && topics.length > MAX_TOPIC_POSITIONS)
    throw usage(`too many topic positions (${topics.length}): a log has at most four topics`);
  const criteria: LogCriteria = {};
  if (flags.address?.length) criteria.address = flags.address.map((text) => parseAddress(text));
  if (topics?.length) criteria.topics = topics;
  return criteria;
}
