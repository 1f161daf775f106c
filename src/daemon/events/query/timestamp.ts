/**
 * Dates (`2013-05-03`) and RFC 3339 times (`2013-05-03T14:45:00Z`) as instants, in nanoseconds
 * since the Unix epoch, so that times written with different offsets compare correctly. A date
 * is midnight UTC of that day.
 */

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const NANOS_PER_MILLI = 1_000_000n;
const MILLIS_PER_MINUTE = 60_000;

/** Parses `YYYY-MM-DD` naming an existing day; anything else gives undefined. */
export function parseDateStamp(text: string): bigint | undefined {
  const match = DATE_PATTERN.exec(text);
  if (match === null) return undefined;
  const midnight = utcMidnight(Number(match[1]), Number(match[2]), Number(match[3]));
  return midnight === undefined ? undefined : BigInt(midnight) * NANOS_PER_MILLI;
}

/**
 * Parses an RFC 3339 time with `T`, seconds, optional fractional seconds and a `Z` or `±hh:mm`
 * offset; anything else, or a field out of range, gives undefined. Fractions beyond nanoseconds
 * are truncated.
 */
export function parseTimeStamp(text: string): bigint | undefined {
  const match = TIME_PATTERN.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction, sign, offsetHour, offsetMinute] =
    match;
  const midnight = utcMidnight(Number(year), Number(month), Number(day));
  if (midnight === undefined) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  let offsetMinutes = 0;
  if (sign !== undefined) {
    if (Number(offsetHour) > 23 || Number(offsetMinute) > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(offsetHour) * 60 + Number(offsetMinute));
  }
  const wallClock = ((Number(hour) * 60 + Number(minute)) * 60 + Number(second)) * 1000;
  const utcMillis = midnight + wallClock - offsetMinutes * MILLIS_PER_MINUTE;
  const nanos = BigInt((fraction ?? '').slice(0, 9).padEnd(9, '0'));
  return BigInt(utcMillis) * NANOS_PER_MILLI + nanos;
}

/** The year written in the first four digits of a date or time stamp. */
export function stampYear(text: string): number {
  return Number(text.slice(0, 4));
}

/** Milliseconds since the epoch at midnight UTC of a calendar day, or undefined if no such day. */
function utcMidnight(year: number, month: number, day: number): number | undefined {
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const exists =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return exists ? date.getTime() : undefined;
}
