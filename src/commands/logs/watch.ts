import { Flags } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { decodeLog, loadAbi } from '../../cli/event-abi.js';
import {
  logCriteria,
  parseBlockNumber,
  parseTopicFlag,
  parseTopicsJson,
  type TopicPosition,
} from '../../cli/log-filter-flags.js';
import { followHeads, watchLogs, type RpcLog } from '../../cli/log-watcher.js';
import { logJson, logLine } from '../../cli/stream-display.js';
import {
  ItemBudget,
  closedMessage,
  type StreamEnd,
  countFlag,
  untilBlockFlag,
  untilInterrupted,
} from '../../cli/until-interrupted.js';
import type { DaemonConnection } from '../../client/daemon-connection.js';
import type { Hex } from '../../client/eth-client.js';
import type { WsRpcClient } from '../../client/ws-rpc-client.js';

export default class LogsWatch extends NodeCommand {
  static override jsonLines = true;
  static override summary = 'Follow the logs the chain emits.';
  static override description =
    'Subscribes to logs (eth_subscribe "logs") matching --address and the topics, and prints one ' +
    'line per log until Ctrl-C (or --count logs). With --from-block first prints the matching logs from that block ' +
    'to the head (eth_getLogs), then follows without gaps or repeats. With --abi, logs of known ' +
    'events are decoded. With --json prints one JSON object per line (JSON Lines): the ' +
    'JSON-RPC log fields, plus "event" {name, args} when decoded (integers as decimal strings).';
  static override examples = [
    '<%= config.bin %> logs watch',
    '<%= config.bin %> logs watch --address 0x5FbDB2315678afecb367f032d93F642f64180aa3 --abi Token.json',
    '<%= config.bin %> logs watch --topic 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef --from-block 0 --json',
    `<%= config.bin %> logs watch --topics '[null, ["0x…", "0x…"]]'`,
  ];
  static override flags = {
    address: Flags.string({
      description: 'Only logs of this contract address (repeat for any of several).',
      multiple: true,
    }),
    topic: Flags.custom<Hex | null>({
      description:
        'Topic at the next position (repeat for positions 0 to 3; "null" or "*" matches any).',
      multiple: true,
      exclusive: ['topics'],
      parse: async (input) => parseTopicFlag(input),
    })(),
    topics: Flags.custom<TopicPosition[]>({
      description:
        'The JSON-RPC topics array, e.g. \'[null, ["0x…", "0x…"]]\' (a list means any of them).',
      exclusive: ['topic'],
      parse: async (input) => parseTopicsJson(input),
    })(),
    abi: Flags.string({
      description: 'ABI file (an ABI array or a compiled artifact with "abi") to decode events.',
    }),
    'from-block': Flags.custom<bigint>({
      description: 'First replay the logs from this block (decimal or 0x-hex) to the head.',
      parse: async (input) => parseBlockNumber(input),
    })(),
    count: countFlag,
    'until-block': untilBlockFlag(),
    follow: Flags.boolean({
      char: 'F',
      description:
        'Keep following when the daemon restarts: reconnect with backoff (0.25 s, doubling to 5 s) and resume where it stopped, without gaps or repeats.',
      default: false,
    }),
  };

  /** Streams until Ctrl-C; returns nothing, so --json output is only the lines. */
  async run(): Promise<void> {
    const { flags } = await this.parse(LogsWatch);
    const criteria = logCriteria(flags);
    const abi = flags.abi === undefined ? undefined : loadAbi(flags.abi);
    const json = this.jsonEnabled();
    const budget = new ItemBudget(flags.count, flags['until-block']);
    // Logs printed, by key, with their block: a resumed replay skips them.
    const printed = new Map<string, bigint>();
    const print = (log: RpcLog): void => {
      const key = `${log.blockHash}:${log.logIndex}`;
      if (printed.has(key) || !budget.take(BigInt(log.blockNumber))) return;
      printed.set(key, BigInt(log.blockNumber));
      const event = abi === undefined ? undefined : decodeLog(abi, log);
      process.stdout.write(`${json ? JSON.stringify(logJson(log, event)) : logLine(log, event)}\n`);
    };
    let fromBlock = flags['from-block'];
    let connection = this.connectDaemon(flags);
    let ws = await connection.openWs();
    for (;;) {
      const session = await this.watch(connection, ws, criteria, fromBlock, print, budget, flags);
      await ws.close();
      await connection.close();
      if (session.end.kind !== 'closed') return;
      if (!flags.follow) this.error(closedMessage(session.end), { exit: 1 });
      process.stderr.write(`${closedMessage(session.end)}; reconnecting (Ctrl-C to stop)\n`);
      fromBlock = session.resumeFrom;
      for (const [key, block] of printed) if (block < fromBlock) printed.delete(key);
      const reconnected = await this.reconnect(flags);
      if (reconnected === undefined) return;
      ({ connection, ws } = reconnected);
    }
  }

  /**
   * One connection's watch: replay from `fromBlock`, then follow until it ends. `resumeFrom` is
   * a block from which a replay cannot miss anything this session had not printed yet: the
   * last head the socket delivered, or the head read before subscribing.
   */
  private async watch(
    connection: DaemonConnection,
    ws: WsRpcClient,
    criteria: ReturnType<typeof logCriteria>,
    fromBlock: bigint | undefined,
    print: (log: RpcLog) => void,
    budget: ItemBudget,
    flags: { follow: boolean },
  ): Promise<{ end: StreamEnd; resumeFrom: bigint }> {
    let resumeFrom = BigInt(await connection.rpc.call<string>('eth_blockNumber'));
    const ended = untilInterrupted(ws, budget);
    const watch = await watchLogs({ ws, rpc: connection.rpc, criteria, fromBlock, onLog: print });
    // Heads only after the replay: history up to the head is printed before the end can come.
    const stopHeads =
      budget.untilBlock === undefined && !flags.follow
        ? undefined
        : await followHeads(ws, (height) => {
            resumeFrom = height;
            budget.headAt(height);
          });
    // On stderr, so --json output stays JSON Lines; scripts can wait for it.
    process.stderr.write('watching logs (Ctrl-C to stop)\n');
    const end = await ended;
    if (end.kind !== 'closed') {
      await stopHeads?.();
      await watch.stop();
    }
    return { end, resumeFrom };
  }

  /** Waits for the daemon to answer again, backing off; undefined when Ctrl-C came first. */
  private async reconnect(
    flags: Parameters<LogsWatch['connectDaemon']>[0],
  ): Promise<{ connection: DaemonConnection; ws: WsRpcClient } | undefined> {
    let delayMs = FIRST_RETRY_MS;
    for (;;) {
      if (await interruptedWithin(delayMs)) return undefined;
      try {
        const connection = this.connectDaemon(flags);
        try {
          return { connection, ws: await connection.openWs() };
        } catch (error) {
          await connection.close();
          throw error;
        }
      } catch {
        delayMs = Math.min(delayMs * 2, LAST_RETRY_MS);
      }
    }
  }
}

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5_000;

/** Waits `ms`; true when Ctrl-C came first. */
function interruptedWithin(ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onSigint = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      process.off('SIGINT', onSigint);
      resolve(false);
    }, ms);
    process.once('SIGINT', onSigint);
  });
}
