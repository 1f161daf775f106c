/** Durations as people write them, for the daemon's options and the CLI's flags. */

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest duration: that of the longest timer (setTimeout, setInterval), about 24.8 days.
 * A longer one would not be waited for: Node fires such a timer after 1 ms (with a warning), so
 * `--block-time 999999h` made a block every millisecond.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/**
 * Durations in milliseconds: `0`, `500ms`, `1s`, `2.5s`, `5m`. A bare number means seconds. At
 * most {@link MAX_DURATION_MS}.
 */
export function parseDuration(raw: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(raw.trim());
  if (!match) throw new Error(`expected a duration such as 0, 500ms, 1s or 5m, got "${raw}"`);
  const ms = Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 's']);
  if (ms > MAX_DURATION_MS) {
    throw new Error(`expected a duration of at most 596h (the longest timer), got "${raw}"`);
  }
  return ms;
}
