/**
 * Follows the logs matching a filter over `eth_subscribe('logs')`, optionally replaying
 * history first with `eth_getLogs`, without gaps or duplicates.
 *
 * Why in this order: the subscription is opened first and its logs are buffered; only then is
 * the head read and history up to it replayed. Every block after that head is committed after
 * the subscription existed, so it is delivered by the subscription; blocks up to the head are
 * in the replay. The buffer may repeat replayed logs, so it is flushed skipping those already
 * printed (a log is named by its block hash and log index).
 */
import type { HttpRpcClient } from '../client/http-rpc-client.js';
import type { Notification, WsRpcClient } from '../client/ws-rpc-client.js';
import type { Hex } from '../client/eth-client.js';
import { toQuantity } from '../client/eth-client.js';
import type { LogCriteria } from './log-filter-flags.js';

/** A log as JSON-RPC returns it (all quantities hex strings). */
export interface RpcLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
  removed: boolean;
}

/** How many blocks one `eth_getLogs` call of the replay covers (below the node's range cap). */
export const REPLAY_BLOCKS_PER_CALL = 2_000n;

export interface LogWatchOptions {
  ws: Pick<WsRpcClient, 'call' | 'onNotification' | 'closed'>;
  rpc: Pick<HttpRpcClient, 'call'>;
  criteria: LogCriteria;
  /** Replay history from this block before following; omitted: only new logs. */
  fromBlock?: bigint;
  onLog(log: RpcLog): void;
}

/** A running watch. */
export interface LogWatch {
  /** Ends the subscription (the socket stays open; the caller closes it). */
  stop(): Promise<void>;
}

function logKey(log: RpcLog): string {
  return `${log.blockHash}:${log.logIndex}`;
}

async function replay(
  rpc: LogWatchOptions['rpc'],
  criteria: LogCriteria,
  fromBlock: bigint,
  onLog: (log: RpcLog) => void,
): Promise<void> {
  const head = BigInt(await rpc.call<string>('eth_blockNumber'));
  for (let start = fromBlock; start <= head; start += REPLAY_BLOCKS_PER_CALL) {
    const end =
      start + REPLAY_BLOCKS_PER_CALL - 1n < head ? start + REPLAY_BLOCKS_PER_CALL - 1n : head;
    const logs = await rpc.call<RpcLog[]>('eth_getLogs', [
      { ...criteria, fromBlock: toQuantity(start), toBlock: toQuantity(end) },
    ]);
    for (const log of logs) onLog(log);
  }
}

/** Subscribes, replays when asked, then delivers every new matching log once, in order. */
export async function watchLogs(options: LogWatchOptions): Promise<LogWatch> {
  const { ws, rpc, criteria, fromBlock, onLog } = options;
  // Notifications can arrive before the eth_subscribe answer is handled, so all are kept until
  // the subscription id is known and history is replayed.
  let buffered: Notification[] | undefined = [];
  const stopListening = ws.onNotification((notification) => {
    if (notification.method !== 'eth_subscription') return;
    if (buffered) buffered.push(notification);
    else deliver(notification);
  });
  const subscriptionId = await ws.call<string>('eth_subscribe', ['logs', criteria]);
  const logOf = (notification: Notification): RpcLog | undefined => {
    const params = notification.params as { subscription?: string; result?: RpcLog } | undefined;
    return params?.subscription === subscriptionId ? params.result : undefined;
  };
  function deliver(notification: Notification): void {
    const log = logOf(notification);
    if (log) onLog(log);
  }

  const printed = new Set<string>();
  if (fromBlock !== undefined)
    await replay(rpc, criteria, fromBlock, (log) => {
      printed.add(logKey(log));
      onLog(log);
    });
  for (const notification of buffered) {
    const log = logOf(notification);
    if (log && !printed.has(logKey(log))) onLog(log);
  }
  buffered = undefined;

  return {
    stop: async () => {
      stopListening();
      if (ws.closed === undefined) await ws.call('eth_unsubscribe', [subscriptionId]);
    },
  };
}

/**
 * Calls `onHead` with the number of every new block (`eth_subscribe('newHeads')`); resolves to
 * the function that ends the subscription. Only the socket's own order is trusted: on it the
 * head of block N+1 comes after the logs of block N, which is what `--until-block` relies on
 * (an answer over HTTP could overtake notifications still unread on the socket).
 */
export async function followHeads(
  ws: WsRpcClient,
  onHead: (height: bigint) => void,
): Promise<() => Promise<void>> {
  // Heads that come before the subscription's id is known are skipped; the next one counts.
  const subscription: { id?: string } = {};
  const stopListening = ws.onNotification((notification) => {
    const params = notification.params as
      { subscription?: string; result?: { number?: string } } | undefined;
    const number = params?.result?.number;
    if (subscription.id !== undefined && params?.subscription === subscription.id && number)
      onHead(BigInt(number));
  });
  subscription.id = await ws.call<string>('eth_subscribe', ['newHeads']);
  return async () => {
    stopListening();
    if (ws.closed === undefined) await ws.call('eth_unsubscribe', [subscription.id]);
  };
}
