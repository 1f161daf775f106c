/**
 * Human output of the chain commands: aligned `key  value` lines. Colours come from chalk,
 * which turns them off when stdout is not a TTY; NO_COLOR (https://no-color.org) is honoured
 * here because chalk itself only reads FORCE_COLOR.
 */
import chalk, { Chalk, type ChalkInstance } from 'chalk';

/** The chalk instance every chain command colours with. */
export const colours: ChalkInstance =
  (process.env.NO_COLOR ?? '') === '' ? chalk : new Chalk({ level: 0 });

/** One line of output: a label and its already formatted value. */
export type KeyValue = readonly [key: string, value: string];

/** Lines with the keys padded to the longest one, so the values form a column. */
export function keyValueLines(entries: readonly KeyValue[], indent = ''): string[] {
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${indent}${colours.bold(key.padEnd(width))}  ${value}`);
}
