import { Args } from '@oclif/core';
import { NodeCommand } from '../../cli/node-command.js';
import { consensusEventJson, consensusEventLine, eventHeight } from '../../cli/stream-display.js';
import {
  ItemBudget,
  closedMessage,
  countFlag,
  untilBlockFlag,
  untilInterrupted,
} from '../../cli/until-interrupted.js';

/** The blocks' own events, which tell `--until-block` where the chain is. */
const NEW_BLOCK_QUERY = "tm.event='NewBlock'";
import { ConsensusWsClient } from '../../client/consensus-ws-client.js';

export default class EventsTail extends NodeCommand {
  static override jsonLines = true;
  static override summary = 'Follow consensus events (CometBFT event WebSocket).';
  static override description =
    "Subscribes on the daemon's CometBFT-compatible WebSocket with a query in CometBFT's event " +
    'query language and prints one line per event until Ctrl-C (or --count events): the event type, the height, and ' +
    'for Tx events the transaction hash, sender, recipient, amount and outcome. With --json prints ' +
    'one JSON object per line (JSON Lines): {query, type, value, events}. A query the daemon ' +
    'cannot parse fails with its error (exit 1).';
  static override examples = [
    '<%= config.bin %> events tail',
    `<%= config.bin %> events tail "tm.event='Tx'"`,
    `<%= config.bin %> events tail "tm.event='Tx'" --count 1 --json   # wait for the next transaction`,
    `<%= config.bin %> events tail "tm.event='Tx' AND ethereum_tx.sender='0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'" --json`,
  ];
  static override args = {
    query: Args.string({
      description: 'Event query, e.g. "tm.event=\'Tx\' AND tx.height > 5".',
      default: "tm.event='NewBlock'",
    }),
  };
  static override flags = { count: countFlag, 'until-block': untilBlockFlag() };

  /** Streams until Ctrl-C; returns nothing, so --json output is only the lines. */
  async run(): Promise<void> {
    const { args, flags } = await this.parse(EventsTail);
    const json = this.jsonEnabled();
    const client = await ConsensusWsClient.connect(
      this.consensusUrl(flags),
      flags['request-timeout'],
    );
    try {
      const budget = new ItemBudget(flags.count, flags['until-block']);
      const ended = untilInterrupted(client, budget);
      const followHeads = budget.untilBlock !== undefined && args.query !== NEW_BLOCK_QUERY;
      if (followHeads) {
        await client.subscribe(NEW_BLOCK_QUERY, (event) => {
          const height = eventHeight(event);
          if (height !== undefined) budget.headAt(height);
        });
      }
      await client.subscribe(args.query, (event) => {
        if (!budget.take(eventHeight(event))) return;
        process.stdout.write(
          `${json ? JSON.stringify(consensusEventJson(event)) : consensusEventLine(event)}\n`,
        );
      });
      // On stderr, so --json output stays JSON Lines; scripts can wait for it.
      process.stderr.write(`subscribed to ${args.query} (Ctrl-C to stop)\n`);
      const end = await ended;
      if (end.kind === 'closed') this.error(closedMessage(end), { exit: 1 });
      await client.unsubscribe(args.query);
      if (followHeads) await client.unsubscribe(NEW_BLOCK_QUERY);
    } finally {
      await client.close();
    }
  }
}
