import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { topLine, topScreen } from '../../cli/top-display.js';
import { countFlag } from '../../cli/until-interrupted.js';
import { readLiveDaemonInfo } from '../../client/daemon-files.js';
import { DaemonControlError, DaemonNotRunningError } from '../../client/errors.js';
import {
  fetchMetricsReading,
  topFigures,
  type MetricsReading,
  type TopFigures,
} from '../../client/node-metrics.js';

/** Move home, clear the screen; hide and show the cursor. */
const CLEAR = '\x1b[H\x1b[2J';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const CTRL_C = '\x03';

export default class NodeTop extends BaseCommand {
  static override jsonLines = true;
  static override summary = 'Live view of the running node, read from its metrics.';
  static override description =
    'Shows head height and age, blocks/s, tx/s, pool sizes, WebSocket connections and subscriptions, ' +
    'JSON-RPC requests/s and p99 latency, memory and CPU, refreshed every --interval. It reads the ' +
    "daemon's Prometheus endpoint (start the daemon with --metrics.enable): --metrics-url, or the " +
    'metrics endpoint the running daemon recorded in its data directory. In a terminal the screen is ' +
    'redrawn and q or Ctrl-C quits; otherwise (a pipe, a log) one line of key=value pairs is printed ' +
    'per refresh until Ctrl-C or --count. With --json, one JSON object per refresh (JSON Lines). ' +
    'Rates are over the last interval, so the first refresh shows none.';
  static override examples = [
    '<%= config.bin %> node top',
    '<%= config.bin %> node top --metrics-url http://127.0.0.1:6060',
    '<%= config.bin %> node top --interval 5000 --count 12 > top.log',
  ];
  static override flags = {
    'metrics-url': Flags.string({
      description:
        "Base URL of the daemon's metrics listener (default: the one the running daemon recorded).",
    }),
    interval: Flags.integer({
      description: 'Refresh interval in milliseconds.',
      default: 1000,
      min: 100,
    }),
    count: { ...countFlag, description: 'Exit (status 0) after this many refreshes.' },
  };

  /** Refreshes until q, Ctrl-C or --count; returns nothing, so --json output is only the lines. */
  async run(): Promise<void> {
    const { flags } = await this.parse(NodeTop);
    const url = flags['metrics-url'] ?? recordedMetricsUrl(this.dataDir(flags));
    const json = this.jsonEnabled();
    const screen = process.stdout.isTTY === true && !json;
    const quit = quitSignal();
    if (screen) process.stdout.write(HIDE_CURSOR);
    try {
      let previous: MetricsReading | undefined;
      for (let shown = 0; flags.count === undefined || shown < flags.count; shown++) {
        const reading = await fetchMetricsReading(url);
        const figures = topFigures(previous, reading);
        previous = reading;
        process.stdout.write(render(figures, { json, screen, url, intervalMs: flags.interval }));
        if (shown + 1 === flags.count) break;
        if (await quit.within(flags.interval)) break;
      }
    } finally {
      quit.dispose();
      if (screen) process.stdout.write(SHOW_CURSOR);
    }
  }
}

function render(
  figures: TopFigures,
  how: { json: boolean; screen: boolean; url: string; intervalMs: number },
): string {
  if (how.json) return `${JSON.stringify({ at: new Date().toISOString(), ...figures })}\n`;
  if (how.screen) return `${CLEAR}${topScreen(figures, how.url, how.intervalMs).join('\n')}\n`;
  return `${topLine(figures, new Date())}\n`;
}

/** The metrics endpoint the running daemon of `dataDir` recorded in daemon.json. */
function recordedMetricsUrl(dataDir: string): string {
  const info = readLiveDaemonInfo(dataDir);
  if (info === undefined) throw new DaemonNotRunningError(dataDir, '--metrics-url');
  if (info.endpoints.metrics === undefined) {
    throw new DaemonControlError(
      'the running daemon serves no metrics: restart it with --metrics.enable, or give --metrics-url',
    );
  }
  return info.endpoints.metrics;
}

/**
 * Watches for the user quitting: q or Ctrl-C typed in a terminal (read in raw mode, where
 * Ctrl-C is a keystroke rather than a signal), or SIGINT.
 */
function quitSignal(): { within(ms: number): Promise<boolean>; dispose(): void } {
  let quit = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    quit = true;
    wake?.();
  };
  const onKey = (data: Buffer) => {
    const text = data.toString('utf8');
    if (text.includes('q') || text.includes('Q') || text.includes(CTRL_C)) stop();
  };
  const keys = process.stdin.isTTY === true;
  if (keys) {
    process.stdin.setRawMode(true);
    process.stdin.on('data', onKey);
    process.stdin.resume();
  }
  process.on('SIGINT', stop);
  return {
    /** Waits `ms` and resolves false, or resolves true as soon as the user quits. */
    within: (ms) =>
      new Promise<boolean>((resolve) => {
        if (quit) return resolve(true);
        const timer = setTimeout(() => resolve(false), ms);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      }),
    dispose: () => {
      process.off('SIGINT', stop);
      if (keys) {
        process.stdin.off('data', onKey);
        process.stdin.setRawMode(false);
        process.stdin.pause();
      }
    },
  };
}
