/**
 * The consensus RPC's routes, as data: name, parameter names (their order is the positional
 * order of JSON-RPC params) and handler. The same table serves GET `/<route>?…`, JSON-RPC
 * over HTTP POST and JSON-RPC over the WebSocket.
 */
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../shared/version.js';
import type { ProductionState } from '../chain/production-health.js';
import { InvalidInputError, NotFoundError } from '../../shared/errors.js';
import type { Query } from '../events/query/index.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { BLOCK_PROTOCOL, blockIdJson, blockJson } from './block-json.js';
import type { HeaderContext } from './block-json.js';
import type { BlockResults, BlockWithResults, ConsensusChain } from './block-results.js';
import { RouteArgs } from './route-args.js';
import { execTxResultJson, txResponseJson } from './tx-json.js';
import { searchTransactions } from './tx-search.js';
import { base64, rfc3339, upperHex } from './wire-encoding.js';

/** CometBFT version whose RPC this server speaks (clients pick their decoder by it). */
export const COMETBFT_COMPAT_VERSION = '0.38.0';

/** The node as the `status`, `net_info` and `genesis` routes describe it. */
export interface NodeDescription {
  /** CometBFT node id: 40 lower-case hex characters. */
  nodeId: string;
  moniker: string;
  /** `tcp://host:port` the server listens on. */
  listenAddress: string;
  /** Compressed secp256k1 public key of the validator (33 bytes). */
  validatorPublicKey: Uint8Array;
}

/** What route handlers read: the chain, its results, header facts and the node's description. */
export interface RouteContext {
  chain: ConsensusChain;
  blocks: BlockResults;
  header: HeaderContext;
  node: NodeDescription;
  /** Whether blocks are being produced, and why not (`chain/production-health.ts`). */
  production(): ProductionState;
  parseQuery(text: string): Query;
}

/**
 * `block_production` of the `status` and `health` answers: an addition of ours (CometBFT
 * clients ignore fields they do not know), so monitors see a halted producer and why.
 */
function productionJson(state: ProductionState): Record<string, unknown> {
  if (state.producing) return { producing: true };
  return {
    producing: false,
    reason: state.reason,
    since: state.since,
    failed_attempts: state.failures,
    next_attempt: state.nextAttempt,
  };
}

/** One route: its parameter names (positional order) and its handler. */
export interface Route {
  params: readonly string[];
  handle(args: RouteArgs, context: RouteContext): unknown;
}

function blockAt(context: RouteContext, height: number | undefined): BlockWithResults {
  const head = context.chain.head().number;
  const wanted = height === undefined ? head : BigInt(height);
  if (wanted > head) {
    throw new InvalidInputError(
      `height ${wanted} must be less than or equal to the current blockchain height ${head}`,
    );
  }
  const block = context.blocks.at(wanted);
  if (block === undefined) throw new NotFoundError(`block at height ${wanted} not found`);
  return block;
}

function validatorJson(context: RouteContext): Record<string, unknown> {
  return {
    address: upperHex(context.chain.coinbase.bytes),
    pub_key: { type: 'tendermint/PubKeySecp256k1', value: base64(context.node.validatorPublicKey) },
  };
}

function requiredString(args: RouteArgs, name: string): string {
  const value = args.string(name);
  if (value === undefined) throw new InvalidInputError(`${name} is required`);
  return value;
}

const status: Route = {
  params: [],
  handle: (_args, context) => {
    const head = context.chain.head();
    const earliest = context.chain.getBlockByNumber(head.number === 0n ? 0n : 1n) ?? head;
    return {
      node_info: {
        protocol_version: { p2p: '8', block: BLOCK_PROTOCOL, app: '0' },
        id: context.node.nodeId,
        listen_addr: context.node.listenAddress,
        network: context.header.chainId,
        version: COMETBFT_COMPAT_VERSION,
        channels: '',
        moniker: context.node.moniker,
        other: { tx_index: 'on', rpc_address: context.node.listenAddress },
      },
      sync_info: {
        latest_block_hash: upperHex(head.hash),
        latest_app_hash: upperHex(head.block.header.stateRoot),
        latest_block_height: head.number.toString(),
        latest_block_time: rfc3339(head.block.header.timestamp),
        earliest_block_hash: upperHex(earliest.hash),
        earliest_app_hash: upperHex(earliest.block.header.stateRoot),
        earliest_block_height: earliest.number.toString(),
        earliest_block_time: rfc3339(earliest.block.header.timestamp),
        catching_up: false,
      },
      validator_info: { ...validatorJson(context), voting_power: '1' },
      block_production: productionJson(context.production()),
    };
  },
};

const block: Route = {
  params: ['height'],
  handle: (args, context) => {
    const { stored } = blockAt(context, args.integer('height'));
    return { block_id: blockIdJson(stored.hash), block: blockJson(stored, context.header) };
  },
};

const blockResults: Route = {
  params: ['height'],
  handle: (args, context) => {
    const { stored, txs } = blockAt(context, args.integer('height'));
    return {
      height: stored.number.toString(),
      txs_results: txs.map(execTxResultJson),
      finalize_block_events: [],
      validator_updates: [],
      app_hash: base64(stored.block.header.stateRoot),
    };
  },
};

const tx: Route = {
  params: ['hash', 'prove'],
  handle: (args, context) => {
    const hash = args.hash('hash');
    if (hash === undefined) throw new InvalidInputError('hash is required');
    args.boolean('prove');
    const found = context.blocks.transaction(hash);
    if (found === undefined) throw new NotFoundError(`tx (${upperHex(hash)}) not found`);
    return txResponseJson(found);
  },
};

const txSearch: Route = {
  params: ['query', 'prove', 'page', 'per_page', 'order_by'],
  handle: (args, context) => {
    const query = context.parseQuery(requiredString(args, 'query'));
    args.boolean('prove');
    const found = searchTransactions(context.blocks, context.chain.head().number, {
      query,
      page: args.integer('page'),
      perPage: args.integer('per_page'),
      orderBy: args.string('order_by'),
    });
    return { txs: found.txs.map(txResponseJson), total_count: String(found.totalCount) };
  },
};

const netInfo: Route = {
  params: [],
  handle: (_args, context) => ({
    listening: true,
    listeners: [context.node.listenAddress],
    n_peers: '0',
    peers: [],
  }),
};

const abciInfo: Route = {
  params: [],
  handle: (_args, context) => {
    const head = context.chain.head();
    return {
      response: {
        data: PACKAGE_NAME,
        version: PACKAGE_VERSION,
        last_block_height: head.number.toString(),
        last_block_app_hash: base64(head.block.header.stateRoot),
      },
    };
  },
};

const genesis: Route = {
  params: [],
  handle: (_args, context) => {
    const genesisBlock = context.chain.getBlockByNumber(0n)!;
    const header = genesisBlock.block.header;
    return {
      genesis: {
        genesis_time: rfc3339(header.timestamp),
        chain_id: context.header.chainId,
        initial_height: '1',
        consensus_params: {
          block: { max_bytes: '-1', max_gas: header.gasLimit.toString() },
          evidence: {
            max_age_num_blocks: '100000',
            max_age_duration: '172800000000000',
            max_bytes: '0',
          },
          validator: { pub_key_types: ['secp256k1'] },
          version: { app: '0' },
        },
        validators: [{ ...validatorJson(context), power: '1', name: context.node.moniker }],
        app_hash: upperHex(header.stateRoot),
        app_state: {
          chain_id: context.chain.chainId.toString(),
          genesis_hash: `0x${upperHex(genesisBlock.hash).toLowerCase()}`,
          gas_limit: header.gasLimit.toString(),
          base_fee_per_gas: (header.baseFeePerGas ?? 0n).toString(),
        },
      },
    };
  },
};

/** Methods of the WebSocket session, not of the route table. */
export const WEBSOCKET_ONLY: ReadonlySet<string> = new Set([
  'subscribe',
  'unsubscribe',
  'unsubscribe_all',
]);

/** Every route the consensus RPC serves, by name. */
export const ROUTES: ReadonlyMap<string, Route> = new Map([
  [
    'health',
    {
      params: [],
      handle: (_args, context) => ({ block_production: productionJson(context.production()) }),
    },
  ],
  ['status', status],
  ['net_info', netInfo],
  ['abci_info', abciInfo],
  ['genesis', genesis],
  ['block', block],
  ['block_results', blockResults],
  ['tx', tx],
  ['tx_search', txSearch],
]);

/**
 * Runs a route with JSON-RPC params (named or positional).
 *
 * @throws {RpcError} -32601 for a name that is not a route.
 */
export function callRoute(
  routes: ReadonlyMap<string, Route>,
  method: string,
  params: unknown,
  context: RouteContext,
): unknown {
  const route = routes.get(method);
  if (route === undefined) {
    const where = WEBSOCKET_ONLY.has(method)
      ? ': it is served only on the WebSocket at /websocket'
      : '';
    throw new RpcError(RpcErrorCode.methodNotFound, `method ${method} not found${where}`);
  }
  return route.handle(RouteArgs.fromJsonParams(params, route.params), context);
}
