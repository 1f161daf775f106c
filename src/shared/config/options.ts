/**
 * Every daemon option in one table: its flag name (also the config-file key), environment
 * variable, default, parser and help text. The `daemon start` flags, the environment and the
 * config file are all read through this table, so they cannot drift apart.
 */
import { delimiter, resolve } from 'node:path';
import {
  parseBoolean,
  parseByteSize,
  parseDuration,
  parseHostPort,
  parseList,
  parseNonNegativeInteger,
  parsePositiveInteger,
  parseTcpListenAddress,
  parseWeiAmount,
  type HostPort,
} from './option-parsers.js';
import { LOG_LEVEL_CHOICES, parseLogLevelName, type LogLevel } from '../log-levels.js';
import { minimumGasPriceProblem } from '../minimum-gas-price.js';
import { MAX_REDUNDANCY } from '../storage-limits.js';
import { HostAllowlist, OriginAllowlist } from '../host-origin-patterns.js';

export interface NodeConfig {
  dev: boolean;
  'dev.methods': boolean | undefined;
  'json-rpc.enable': boolean;
  'json-rpc.address': HostPort;
  'json-rpc.ws-address': HostPort;
  'json-rpc.vhosts': string[];
  'json-rpc.cors': string[];
  'json-rpc.ws-origins': string[];
  'json-rpc.ethereum-compat': boolean;
  'json-rpc.evm-threads': number | undefined;
  'evm.rpc.api': string[];
  'rpc.laddr': HostPort;
  'minimum-gas-prices': bigint | undefined;
  'block-time': number;
  'empty-blocks': boolean;
  'os-memory-release': boolean;
  'chain-id': number | undefined;
  'json-rpc.max-body-size': number;
  'json-rpc.batch-request-limit': number;
  'json-rpc.batch-response-max-size': number;
  'json-rpc.ws-max-message-size': number;
  'json-rpc.max-nesting': number;
  'json-rpc.max-connections': number;
  'json-rpc.read-timeout': number;
  'json-rpc.idle-timeout': number;
  'json-rpc.max-buffered-response': number;
  'json-rpc.gas-cap': number;
  'json-rpc.evm-timeout': number;
  'json-rpc.evm-idle': number;
  'json-rpc.logs-cap': number;
  'json-rpc.block-range-cap': number;
  'json-rpc.filter-timeout': number;
  'rpc.max-subscription-clients': number;
  'rpc.max-subscriptions-per-client': number;
  'rpc.max-query-length': number;
  'rpc.max-query-conditions': number;
  'json-rpc.max-filters': number;
  'json-rpc.filters-per-client': number;
  'json-rpc.ws-max-subscriptions': number;
  'json-rpc.evm-queue': number;
  'json-rpc.evm-queue-per-client': number;
  'json-rpc.trace-threads': number;
  'json-rpc.trace-queue': number;
  'json-rpc.trace-result-max-size': number;
  'keystore.kdf-concurrency': number;
  'keystore.kdf-queue': number;
  'rpc.max-open-connections': number;
  'rpc.max-body-bytes': number;
  'rpc.read-timeout': number;
  'rpc.max-nesting': number;
  'rpc.batch-request-limit': number;
  'rpc.batch-response-max-size': number;
  'log-level': LogLevel;
  'log.max-size': number;
  'log.max-files': number;
  'log.format': LogFormat;
  'keystore.light-kdf': boolean;
  /** Undefined for `auto`: 64, or no per-sender bound on the dev chain. */
  'txpool.accountqueue': number | undefined;
  'txpool.globalslots': number;
  'txpool.pricebump': number;
  'txpool.lifetime': number;
  'txpool.journal-interval': number;
  'node-key.password-file': string | undefined;
  'rest.enable': boolean;
  'rest.address': HostPort;
  'rest.max-body-size': number;
  'rest.expensive-rate': number;
  'rest.max-connections': number;
  'rest.read-timeout': number;
  'metrics.enable': boolean;
  'metrics.address': HostPort;
  'health.max-head-age-blocks': number;
  'storage.volume': string[];
  'storage.chunk-size': number;
  'storage.max-upload-size': number;
  'storage.max-content-size': number;
  'storage.redundancy': number;
  'storage.scrub-rate': number;
  'storage.collect-interval': number;
  'storage.upload-idle-timeout': number;
  'storage.download-idle-timeout': number;
}

export type OptionKey = keyof NodeConfig;
export type { LogLevel };
/** How `--foreground` writes its log to stdout; the background daemon's file is always JSON. */
export type LogFormat = 'text' | 'json';

export interface OptionSpec<K extends OptionKey = OptionKey> {
  key: K;
  /** Help text shown by `daemon start --help` and in the man page. */
  description: string;
  /** Default as a user would write it (also shown in help). */
  defaultText: string | undefined;
  /** True for on/off options: `--name` / `--no-name` on the command line. */
  boolean?: boolean;
  /**
   * May be given several times on the command line; the values reach `parse` joined by the
   * platform's path delimiter (`:`), which is also how the environment variable lists them.
   */
  repeatable?: boolean;
  parse(raw: string): NodeConfig[K];
}

/** A wei amount the node can run with as its base-fee floor (see `chain/base-fee.ts`). */
function parseMinimumGasPrice(raw: string): bigint {
  const price = parseWeiAmount(raw);
  const problem = minimumGasPriceProblem(price);
  if (problem !== undefined) throw new Error(`${problem}, got ${price}`);
  return price;
}

function parseLogLevel(raw: string): LogLevel {
  const level = parseLogLevelName(raw);
  if (level === undefined) throw new Error(`expected ${LOG_LEVEL_CHOICES}, got "${raw}"`);
  return level;
}

function parseLogFormat(raw: string): LogFormat {
  const format = raw.trim().toLowerCase();
  if (format === 'text' || format === 'json') return format;
  throw new Error(`expected text or json, got "${raw}"`);
}

/** Below this a burst of lines would rotate on nearly every line. */
const MIN_LOG_FILE_SIZE = 64 * 1024;

function parseLogFileSize(raw: string): number {
  const size = parseByteSize(raw);
  if (size < MIN_LOG_FILE_SIZE) throw new Error(`expected at least 64KiB, got "${raw}"`);
  return size;
}

function parsePositiveDuration(raw: string): number {
  const ms = parseDuration(raw);
  if (ms <= 0) throw new Error(`expected a duration above 0 such as 30s or 3h, got "${raw}"`);
  return ms;
}

/** Longest group-commit window of the pool journal: every answer to a submission may wait this long. */
const MAX_JOURNAL_INTERVAL_MS = 1000;

function parseJournalInterval(raw: string): number {
  const ms = parseDuration(raw);
  if (ms > MAX_JOURNAL_INTERVAL_MS) {
    throw new Error(`expected a duration from 0 to ${MAX_JOURNAL_INTERVAL_MS}ms, got "${raw}"`);
  }
  return ms;
}

/** More threads than this only cost memory: each one holds its own caches and EVM. */
export const MAX_EVM_THREADS = 64;

function parseThreadCount(raw: string): number {
  const count = parseNonNegativeInteger(raw);
  if (count > MAX_EVM_THREADS) {
    throw new Error(`expected at most ${MAX_EVM_THREADS} threads, got ${count}`);
  }
  return count;
}

/** Storage volume directories, `:`-separated (a repeated `--storage.volume` arrives so). */
function parseVolumeList(raw: string): string[] {
  const volumes = raw
    .split(delimiter)
    .filter((path) => path !== '')
    .map((path) => resolve(path));
  if (new Set(volumes).size !== volumes.length) {
    throw new Error(`a volume is named twice in "${raw}"; replicas need distinct volumes`);
  }
  return volumes;
}

/** Chunk sizes from 4 KiB to 64 MiB: smaller makes the index huge, larger makes reads coarse. */
function parseChunkSize(raw: string): number {
  const size = parseByteSize(raw);
  if (size < 4096 || size > 64 * 1024 * 1024) {
    throw new Error(`expected a size from 4KiB to 64MiB, got "${raw}"`);
  }
  return size;
}

function parseRedundancy(raw: string): number {
  const count = parsePositiveInteger(raw);
  if (count > MAX_REDUNDANCY)
    throw new Error(`expected 1 to ${MAX_REDUNDANCY} replicas, got ${count}`);
  return count;
}

/** Host patterns (`--json-rpc.vhosts`), checked when read so a typo stops the start. */
function parseHostList(raw: string): string[] {
  const list = parseList(raw);
  HostAllowlist.parse(list);
  return list;
}

/** Origin patterns (`--json-rpc.cors`, `--json-rpc.ws-origins`), checked when read. */
function parseOriginList(raw: string): string[] {
  const list = parseList(raw);
  OriginAllowlist.parse(list);
  return list;
}

function option<K extends OptionKey>(spec: OptionSpec<K>): OptionSpec<K> {
  return spec;
}

const optional =
  <T>(parse: (raw: string) => T) =>
  (raw: string): T | undefined =>
    raw === '' ? undefined : parse(raw);

export const OPTION_SPECS: readonly OptionSpec[] = [
  option({
    key: 'dev',
    boolean: true,
    defaultText: 'true',
    description:
      'Dev mode: the embedded single-validator dev chain with the ten funded, unlocked test accounts.',
    parse: parseBoolean,
  }),
  option({
    key: 'dev.methods',
    boolean: true,
    defaultText: undefined,
    description:
      'Serve the test-control methods of Hardhat and anvil (evm_snapshot, evm_revert, hardhat_setBalance, anvil_mine, ...; docs/dev-methods.md). Default: on with --dev.',
    parse: optional(parseBoolean),
  }),
  option({
    key: 'json-rpc.enable',
    boolean: true,
    defaultText: 'true',
    description: 'Serve the EVM JSON-RPC interface over HTTP and WebSocket.',
    parse: parseBoolean,
  }),
  option({
    key: 'json-rpc.address',
    defaultText: '127.0.0.1:8545',
    description: 'host:port of the JSON-RPC HTTP server (port 0 picks a free port).',
    parse: parseHostPort,
  }),
  option({
    key: 'json-rpc.ws-address',
    defaultText: '0.0.0.0:8546',
    description: 'host:port of the JSON-RPC WebSocket server (port 0 picks a free port).',
    parse: parseHostPort,
  }),
  option({
    key: 'json-rpc.vhosts',
    defaultText: 'localhost,127.0.0.1,[::1]',
    description:
      'Comma-separated host names the HTTP and WebSocket listeners (JSON-RPC, consensus, REST) accept in the Host header, against DNS rebinding; "*.example.com" for subdomains, "*" for any. The port is ignored; IP addresses and each listener\'s own bound host are always accepted.',
    parse: parseHostList,
  }),
  option({
    key: 'json-rpc.cors',
    defaultText: '',
    description:
      'Comma-separated browser origins allowed to send HTTP requests (CORS) to the JSON-RPC, consensus and REST listeners, e.g. https://app.example.com, "*" for any; empty refuses every browser origin. Requests without an Origin header (programs) are not affected.',
    parse: parseOriginList,
  }),
  option({
    key: 'json-rpc.ws-origins',
    defaultText: '',
    description:
      'Comma-separated browser origins allowed to open WebSocket connections to the JSON-RPC and consensus listeners, "*" for any; empty refuses every browser origin. Connections without an Origin header (programs) are not affected.',
    parse: parseOriginList,
  }),
  option({
    key: 'json-rpc.ethereum-compat',
    boolean: true,
    defaultText: 'false',
    description:
      'Give difficulty, nonce, sha3Uncles and totalDifficulty the post-merge values geth returns instead of null (for ethers v6 and Foundry).',
    parse: parseBoolean,
  }),
  option({
    key: 'json-rpc.evm-threads',
    defaultText: undefined,
    description:
      'Worker threads that run the EVM for eth_call and eth_estimateGas (and recover the senders of submitted transactions), so a long call never holds up other requests. Default: CPU cores - 1, at least 1 and at most 3; 0 runs calls on the main thread, where --json-rpc.evm-timeout cannot stop them.',
    parse: optional(parseThreadCount),
  }),
  option({
    key: 'evm.rpc.api',
    defaultText: 'web3,eth,net,txpool,personal,miner,debug',
    description:
      'Comma-separated JSON-RPC namespaces to serve: web3, eth, net, txpool, personal, miner, debug, admin (admin is left out by default, as in geth).',
    parse: parseList,
  }),
  option({
    key: 'rpc.laddr',
    defaultText: 'tcp://127.0.0.1:26657',
    description:
      'Listen address of the CometBFT-compatible consensus RPC (WebSocket at /websocket).',
    parse: parseTcpListenAddress,
  }),
  option({
    key: 'minimum-gas-prices',
    defaultText: undefined,
    description:
      'Minimum gas price in wei (e.g. 1000000000 or 1gwei), at most 2^192-1; overrides the config file and miner_setGasPrice. Default: the genesis value.',
    parse: optional(parseMinimumGasPrice),
  }),
  option({
    key: 'block-time',
    defaultText: '1s',
    description:
      'Interval between blocks (e.g. 1s, 500ms); 0 commits as soon as transactions are pending, and answers each send once its block is committed.',
    parse: parseDuration,
  }),
  option({
    key: 'keystore.light-kdf',
    boolean: true,
    defaultText: 'false',
    description:
      'Encrypt new key files with light scrypt (fast, weak): for tests only, refused without --dev.',
    parse: parseBoolean,
  }),
  option({
    key: 'empty-blocks',
    boolean: true,
    defaultText: 'true',
    description:
      'Produce a block at every interval even with no transactions (--no-empty-blocks to skip).',
    parse: parseBoolean,
  }),
  option({
    key: 'os-memory-release',
    boolean: true,
    defaultText: 'true',
    description:
      'After heavy work, hand back to the system the memory glibc holds free (malloc_trim), through the optional addon built at install; --no-os-memory-release to keep it.',
    parse: parseBoolean,
  }),
  option({
    key: 'chain-id',
    defaultText: undefined,
    description: 'Chain id of the dev chain created on a fresh data directory (default 9000).',
    parse: optional(parsePositiveInteger),
  }),
  option({
    key: 'json-rpc.max-body-size',
    defaultText: '5MiB',
    description: 'Largest accepted HTTP JSON-RPC request body.',
    parse: parseByteSize,
  }),
  option({
    key: 'json-rpc.batch-request-limit',
    defaultText: '1000',
    description: 'Most calls in one JSON-RPC batch.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.batch-response-max-size',
    defaultText: '25MB',
    description: 'Largest total response of one JSON-RPC batch.',
    parse: parseByteSize,
  }),
  option({
    key: 'json-rpc.ws-max-message-size',
    defaultText: '32MiB',
    description: 'Largest accepted WebSocket message.',
    parse: parseByteSize,
  }),
  option({
    key: 'json-rpc.max-nesting',
    defaultText: '128',
    description:
      'Deepest nesting of arrays and objects in a JSON-RPC request (HTTP and WebSocket), checked before parsing.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.max-connections',
    defaultText: '1000',
    description:
      'Most open connections on each JSON-RPC listener (HTTP and WebSocket); more are refused.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.read-timeout',
    defaultText: '30s',
    description:
      'Longest time to receive a whole HTTP request (head and body) from its first byte, and a WebSocket handshake.',
    parse: parsePositiveDuration,
  }),
  option({
    key: 'json-rpc.idle-timeout',
    defaultText: '65s',
    description: 'Idle time after which a kept-alive HTTP connection is closed.',
    parse: parsePositiveDuration,
  }),
  option({
    key: 'json-rpc.max-buffered-response',
    defaultText: '1MiB',
    description:
      'Unread answer bytes on an HTTP connection above which its pipelined requests wait until the client reads.',
    parse: parseByteSize,
  }),
  option({
    key: 'json-rpc.gas-cap',
    defaultText: '25000000',
    description: 'Gas cap of eth_call and eth_estimateGas.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.evm-timeout',
    defaultText: '5s',
    description:
      'Longest an eth_call or eth_estimateGas may run on a call thread before it is aborted; 0 for no limit.',
    parse: parseDuration,
  }),
  option({
    key: 'json-rpc.evm-idle',
    defaultText: '30s',
    description:
      'How long the call threads may go without a call, estimate or sender recovery before they are stopped to free their memory (about 24 MiB each); the next call starts one again and waits for it. 0 starts them with the daemon and keeps them.',
    parse: parseDuration,
  }),
  option({
    key: 'json-rpc.logs-cap',
    defaultText: '10000',
    description: 'Most logs returned by one eth_getLogs call.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.block-range-cap',
    defaultText: '10000',
    description: 'Largest block range of one eth_getLogs call.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.filter-timeout',
    defaultText: '5m',
    description: 'Idle time after which an unpolled filter is removed.',
    parse: parseDuration,
  }),
  option({
    key: 'rpc.max-subscription-clients',
    defaultText: '100',
    description: 'Most clients subscribed at once on the consensus WebSocket.',
    parse: parseNonNegativeInteger,
  }),
  option({
    key: 'rpc.max-subscriptions-per-client',
    defaultText: '5',
    description: 'Most subscriptions of one consensus WebSocket client.',
    parse: parseNonNegativeInteger,
  }),
  option({
    key: 'rpc.max-query-length',
    defaultText: '512',
    description:
      'Longest query (bytes) of a consensus subscribe or tx_search (CometBFT refuses longer ones too).',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'rpc.max-query-conditions',
    defaultText: '16',
    description: 'Most conditions (joined by AND) in one consensus subscribe or tx_search query.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.max-filters',
    defaultText: '10000',
    description: 'Most polling filters (eth_newFilter and the like) installed on the node at once.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.filters-per-client',
    defaultText: '1000',
    description:
      'Most polling filters installed at once by one client: one WebSocket connection, or one remote address over HTTP.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.ws-max-subscriptions',
    defaultText: '256',
    description: 'Most eth_subscribe subscriptions of one WebSocket connection.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.evm-queue',
    defaultText: '1024',
    description:
      'Most eth_call and eth_estimateGas calls waiting for a call thread, all clients together.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.evm-queue-per-client',
    defaultText: '64',
    description:
      'Most eth_call and eth_estimateGas calls of one client (one WebSocket connection, or one remote address over HTTP) waiting for or running on a call thread.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.trace-threads',
    defaultText: '2',
    description:
      'Worker threads that run debug traces (debug_trace*), started when traces first come; a thread runs one trace at a time.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.trace-queue',
    defaultText: '64',
    description: 'Most debug traces waiting for a trace thread, all clients together.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'json-rpc.trace-result-max-size',
    defaultText: '25MB',
    description:
      'Largest result of one debug trace, counted as the struct logger records steps (each trace thread holds it until the trace ends).',
    parse: parseByteSize,
  }),
  option({
    key: 'keystore.kdf-concurrency',
    defaultText: '1',
    description:
      'Key derivations (scrypt, 256 MiB each at standard strength) run at once for personal_* methods and local wallets.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'keystore.kdf-queue',
    defaultText: '8',
    description: 'Key derivations that may wait for a free slot; more are refused.',
    parse: parseNonNegativeInteger,
  }),
  option({
    key: 'rpc.max-open-connections',
    defaultText: '900',
    description:
      'Most open connections on the consensus RPC listener (HTTP and WebSocket together).',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'rpc.max-body-bytes',
    defaultText: '1000000',
    description:
      'Largest consensus RPC request body and WebSocket message (CometBFT max_body_bytes).',
    parse: parseByteSize,
  }),
  option({
    key: 'rpc.read-timeout',
    defaultText: '10s',
    description:
      'Longest time to receive a whole consensus RPC request from its first byte; also its idle keep-alive time.',
    parse: parsePositiveDuration,
  }),
  option({
    key: 'rpc.max-nesting',
    defaultText: '128',
    description:
      'Deepest nesting of arrays and objects in a consensus RPC request (HTTP and WebSocket), checked before parsing.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'rpc.batch-request-limit',
    defaultText: '1000',
    description: 'Most calls in one consensus RPC batch.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'rpc.batch-response-max-size',
    defaultText: '25MB',
    description: 'Largest total response of one consensus RPC batch.',
    parse: parseByteSize,
  }),
  option({
    key: 'txpool.accountqueue',
    defaultText: 'auto',
    description:
      'Most queued (nonce-gap) transactions of one sender in the pool; auto: 64 (geth), or no per-sender bound with --dev (as anvil), where --txpool.globalslots still bounds the pool.',
    parse: (raw) => (raw.trim() === 'auto' ? undefined : parseNonNegativeInteger(raw)),
  }),
  option({
    key: 'txpool.globalslots',
    defaultText: '6144',
    description:
      'Most transactions in the pool, pending and queued together (geth: 5120 slots + 1024 queue).',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'txpool.pricebump',
    defaultText: '10',
    description: 'Percent by which a replacement must raise both fee cap and tip.',
    parse: parseNonNegativeInteger,
  }),
  option({
    key: 'txpool.lifetime',
    defaultText: '3h',
    description: 'How long a queued (nonce-gap) transaction may wait before it is dropped.',
    parse: parsePositiveDuration,
  }),
  option({
    key: 'txpool.journal-interval',
    defaultText: '0',
    description:
      'Group-commit window of the pool journal: how long the first accepted transaction of a batch waits for others before the batch is written; each is answered once on disk. 0 writes at the end of the event-loop turn.',
    parse: parseJournalInterval,
  }),
  option({
    key: 'node-key.password-file',
    defaultText: undefined,
    description:
      'File whose first line is the passphrase of the node key (<datadir>/node_key.json, the validator and identity key): the key is kept as a v3 keystore under it (a plain key is encrypted at start). Default: the key is kept plain with mode 0600.',
    parse: optional((raw) => resolve(raw)),
  }),
  option({
    key: 'rest.enable',
    boolean: true,
    defaultText: 'true',
    description: 'Serve the REST interface (/v1/api) and its /v1/api/ws/node WebSocket.',
    parse: parseBoolean,
  }),
  option({
    key: 'rest.address',
    defaultText: '127.0.0.1:1317',
    description: 'host:port of the REST server (port 0 picks a free port).',
    parse: parseHostPort,
  }),
  option({
    key: 'rest.max-body-size',
    defaultText: '5MiB',
    description: 'Largest accepted REST request body; a larger one is refused with 413.',
    parse: parseByteSize,
  }),
  option({
    key: 'rest.expensive-rate',
    defaultText: '20',
    description:
      "Most expensive REST operations (crypto/encrypt and crypto/decrypt, about 20 ms of the main thread each) per second, bursts up to one second's worth; past it they answer 429. 0 for no limit.",
    parse: parseNonNegativeInteger,
  }),
  option({
    key: 'rest.max-connections',
    defaultText: '1000',
    description:
      'Most open connections on the REST listener (HTTP and the /v1/api/ws/node WebSocket together); more are closed as they arrive.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'rest.read-timeout',
    defaultText: '30s',
    description:
      "Longest time to receive a REST request's head, and then its body (a streamed upload is limited by --storage.upload-idle-timeout instead); also how long a kept-alive connection may stay idle.",
    parse: parsePositiveDuration,
  }),
  option({
    key: 'metrics.enable',
    boolean: true,
    defaultText: 'false',
    description:
      'Serve Prometheus metrics at /metrics, and /health and /ready, on --metrics.address (docs/metrics.md).',
    parse: parseBoolean,
  }),
  option({
    key: 'metrics.address',
    defaultText: '127.0.0.1:6060',
    description:
      'host:port of the metrics listener, used with --metrics.enable (port 0 picks a free port).',
    parse: parseHostPort,
  }),
  option({
    key: 'health.max-head-age-blocks',
    defaultText: '5',
    description:
      'GET /ready fails when the head block is older than this many block times (not checked with --block-time 0 or --no-empty-blocks).',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'storage.volume',
    repeatable: true,
    defaultText: '',
    description:
      'A storage volume directory (repeat the flag for several; in the environment or config file separate them with ":"). Replicas of a chunk go to distinct volumes. Default: <datadir>/storage.',
    parse: parseVolumeList,
  }),
  option({
    key: 'storage.chunk-size',
    defaultText: '1MiB',
    description:
      'Size of the chunks files are split into (4KiB to 64MiB). Changing it changes the ids of files added afterwards.',
    parse: parseChunkSize,
  }),
  option({
    key: 'storage.max-upload-size',
    defaultText: '4GiB',
    description:
      'Largest file an upload (POST /v1/api/storage/files) may send; a larger one is refused with 413.',
    parse: parseByteSize,
  }),
  option({
    key: 'storage.max-content-size',
    defaultText: '64MiB',
    description:
      'Largest file GET /v1/api/storage/files/:id/content answers as one JSON string (held in memory); larger files answer 413 and are read from /raw, which streams.',
    parse: parseByteSize,
  }),
  option({
    key: 'storage.redundancy',
    defaultText: '1',
    description: `Replicas on distinct volumes of an upload that does not ask for a number (1 to ${MAX_REDUNDANCY}).`,
    parse: parseRedundancy,
  }),
  option({
    key: 'storage.scrub-rate',
    defaultText: '10',
    description:
      'Chunks per second the scrubber reads back and verifies (all replicas of each), repairing bad replicas; 0 turns it off.',
    parse: parseNonNegativeInteger,
  }),
  option({
    key: 'storage.collect-interval',
    defaultText: '1m',
    description:
      'How often expired files are renewed (autorenew) or removed with the chunks no other file holds.',
    parse: parsePositiveDuration,
  }),
  option({
    key: 'storage.upload-idle-timeout',
    defaultText: '60s',
    description:
      'How long an upload waits for its next bytes; a client that sends nothing for longer is answered 408 and its upload fails (nothing listed, its bytes removed).',
    parse: parsePositiveDuration,
  }),
  option({
    key: 'storage.download-idle-timeout',
    defaultText: '60s',
    description:
      'How long a download (GET .../raw) waits for its client to take the next 256 KiB; a client that takes nothing for longer is disconnected and the download ends.',
    parse: parsePositiveDuration,
  }),
  option({
    key: 'log-level',
    defaultText: 'info',
    description:
      'Daemon log level: silent, error, warn, info, debug or trace (or geth verbosity 0-5). Changed at run time by debug_verbosity and `node-cli daemon log-level`.',
    parse: parseLogLevel,
  }),
  option({
    key: 'log.max-size',
    defaultText: '64MiB',
    description:
      "Size at which the background daemon's log file (<datadir>/logs/daemon.log) is rotated to daemon.log.1 (at least 64KiB).",
    parse: parseLogFileSize,
  }),
  option({
    key: 'log.max-files',
    defaultText: '5',
    description:
      'Log files kept, the one being written included (daemon.log, daemon.log.1, ...); the oldest beyond it is deleted.',
    parse: parsePositiveInteger,
  }),
  option({
    key: 'log.format',
    defaultText: 'text',
    description:
      'Log output of --foreground on stdout: text (time, level, message, key=value) or json (one JSON object a line). The log file is always JSON.',
    parse: parseLogFormat,
  }),
];

/** Environment variable that sets an option: `json-rpc.address` -> `NODE_CLI_JSON_RPC_ADDRESS`. */
export function envVarName(key: string): string {
  return `NODE_CLI_${key.toUpperCase().replace(/[.-]/g, '_')}`;
}

export function findOption(key: string): OptionSpec | undefined {
  return OPTION_SPECS.find((spec) => spec.key === key);
}
