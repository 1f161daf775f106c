/** Durations as people write them, for the daemon's options and the CLI's flags. */

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Durations in milliseconds: `0`, `500ms`, `1s`, `2.5s`, `5m`. A bare number means seconds. */
export function parseDuration(raw: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(raw.trim());
  if (!match) throw new Error(`expected a duration such as 0, 500ms, 1s or 5m, got "${raw}"`);
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 's']);
}
