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
  countFlag,
  untilBlockFlag,
  untilInterrupted,
} from '../../cli/until-interrupted.js';
import type { Hex } from '../../client/eth-client.js';

export default class LogsWatch extends NodeCommand {
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
  };

  /** Streams until Ctrl-C; returns nothing, so --json output is only the lines. */
  async run(): Promise<void> {
    const { flags } = await this.parse(LogsWatch);
    const criteria = logCriteria(flags);
    const abi = flags.abi === undefined ? undefined : loadAbi(flags.abi);
    const json = this.jsonEnabled();
    const budget = new ItemBudget(flags.count, flags['until-block']);
    const print = (log: RpcLog): void => {
      if (!budget.take(BigInt(log.blockNumber))) return;
      const event = abi === undefined ? undefined : decodeLog(abi, log);
      process.stdout.write(`${json ? JSON.stringify(logJson(log, event)) : logLine(log, event)}\n`);
    };
    const connection = this.connectDaemon(flags);
    const ws = await connection.openWs();
    try {
      const ended = untilInterrupted(ws, budget);
      const watch = await watchLogs({
        ws,
        rpc: connection.rpc,
        criteria,
        fromBlock: flags['from-block'],
        onLog: print,
      });
      // Heads only after the replay: history up to the head is printed before the end can come.
      const stopHeads =
        budget.untilBlock === undefined
          ? undefined
          : await followHeads(ws, (height) => budget.headAt(height));
      // On stderr, so --json output stays JSON Lines; scripts can wait for it.
      process.stderr.write('watching logs (Ctrl-C to stop)\n');
      const end = await ended;
      if (end.kind === 'closed') this.error(closedMessage(end), { exit: 1 });
      await stopHeads?.();
      await watch.stop();
    } finally {
      await ws.close();
      await connection.close();
    }
  }
}
