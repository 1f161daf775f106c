/**
 * What `node top` prints: a screen that is redrawn in a terminal, or one line per refresh
 * when stdout is not one (a log, a pipe).
 */
import type { TopFigures } from '../client/node-metrics.js';
import { colours, keyValueLines } from './key-value-lines.js';

function rate(value: number | undefined, digits = 2): string {
  return value === undefined ? '-' : value.toFixed(digits);
}

function mebibytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function latency(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  return seconds < 0.001 ? `${(seconds * 1e6).toFixed(0)} µs` : `${(seconds * 1000).toFixed(2)} ms`;
}

/** The lines of the terminal screen (without the clearing). */
export function topScreen(figures: TopFigures, source: string, intervalMs: number): string[] {
  return [
    `${colours.bold('node-cli top')}  ${colours.dim(`${source}, every ${intervalMs / 1000} s, q to quit`)}`,
    '',
    ...keyValueLines([
      ['height', `${figures.headHeight}  (head ${figures.headAgeSeconds.toFixed(1)} s old)`],
      ['blocks/s', rate(figures.blocksPerSecond)],
      ['tx/s', rate(figures.txPerSecond)],
      ['pool', `${figures.pending} pending, ${figures.queued} queued`],
      ['connections', `${figures.connections} WebSocket, ${figures.subscriptions} subscriptions`],
      ['requests/s', rate(figures.requestsPerSecond, 1)],
      ['p99 latency', latency(figures.p99Seconds)],
      [
        'memory',
        `${mebibytes(figures.residentBytes)} resident, ${mebibytes(figures.heapUsedBytes)} heap`,
      ],
      ['cpu', figures.cpuPercent === undefined ? '-' : `${figures.cpuPercent.toFixed(0)} %`],
    ]),
  ];
}

/** One plain line: `key=value` pairs after an ISO timestamp. */
export function topLine(figures: TopFigures, at: Date): string {
  return [
    at.toISOString(),
    `height=${figures.headHeight}`,
    `age=${figures.headAgeSeconds.toFixed(1)}s`,
    `blocks/s=${rate(figures.blocksPerSecond)}`,
    `tx/s=${rate(figures.txPerSecond)}`,
    `pending=${figures.pending}`,
    `queued=${figures.queued}`,
    `connections=${figures.connections}`,
    `subscriptions=${figures.subscriptions}`,
    `requests/s=${rate(figures.requestsPerSecond, 1)}`,
    `p99=${latency(figures.p99Seconds).replace(' ', '')}`,
    `rss=${mebibytes(figures.residentBytes).replace(' ', '')}`,
    `cpu=${figures.cpuPercent === undefined ? '-' : `${figures.cpuPercent.toFixed(0)}%`}`,
  ].join(' ');
}
