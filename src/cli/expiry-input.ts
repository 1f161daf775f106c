/**
 * The `--expires` of `files add`: when the file's lease ends, as unix seconds (0 = never).
 * Accepted forms: `never` or `0`; a duration from now (`90s`, `30m`, `12h`, `7d`, `2w`); a date
 * `Date.parse` reads (`2027-01-31`, `2027-01-31T12:00:00Z`).
 */
const SECONDS_PER_UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

export function expiresOf(text: string, nowSeconds: number): number {
  const value = text.trim();
  if (value === '0' || value.toLowerCase() === 'never') return 0;
  const duration = /^(\d+)\s*([smhdw])$/i.exec(value);
  if (duration) {
    const seconds = Number(duration[1]) * SECONDS_PER_UNIT[duration[2].toLowerCase()];
    if (seconds === 0) throw new Error(`--expires: a duration must be above 0, got "${text}"`);
    return nowSeconds + seconds;
  }
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(date)) {
    throw new Error(
      `--expires: expected never, a duration such as 30m, 12h or 7d, or a date such as 2027-01-31, got "${text}"`,
    );
  }
  const seconds = Math.floor(date / 1000);
  if (seconds <= nowSeconds) throw new Error(`--expires: ${value} is not in the future`);
  return seconds;
}
