/**
 * Parsers for option values. Each takes the raw text (from a flag, an environment variable or
 * the config file) and returns the typed value or throws a message naming what was expected.
 */

export interface HostPort {
  host: string;
  port: number;
}

export function parseBoolean(raw: string): boolean {
  const text = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  throw new Error(`expected true or false, got "${raw}"`);
}

export function parseNonNegativeInteger(raw: string): number {
  const text = raw.trim();
  if (!/^\d+$/.test(text)) throw new Error(`expected a non-negative integer, got "${raw}"`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`"${raw}" is too large`);
  return value;
}

export function parsePositiveInteger(raw: string): number {
  const value = parseNonNegativeInteger(raw);
  if (value === 0) throw new Error(`expected an integer greater than 0, got "${raw}"`);
  return value;
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
};

/** Byte sizes: `5242880`, `5MiB`, `25MB`, `512KiB`. */
export function parseByteSize(raw: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = match ? SIZE_UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new Error(`expected a size such as 5242880, 5MiB or 25MB, got "${raw}"`);
  }
  const value = Number(match[1]) * unit;
  if (!Number.isSafeInteger(value) || value === 0) throw new Error(`"${raw}" is not a usable size`);
  return value;
}

/** Shared with the CLI, whose flags take durations too. */
export { parseDuration } from '../duration.js';

/** `host:port`, `[::1]:port` or `:port` (all interfaces); port 0 picks a free port. */
export function parseHostPort(raw: string): HostPort {
  const text = raw.trim().replace(/^tcp:\/\//, '');
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  if (!match) throw new Error(`expected host:port such as 127.0.0.1:8545, got "${raw}"`);
  const port = Number(match[3]);
  if (port > 65535) throw new Error(`port ${port} is out of range (0-65535)`);
  const host = match[1] ?? (match[2] || '0.0.0.0');
  return { host, port };
}

/** CometBFT-style listen address: `tcp://host:port`. */
export function parseTcpListenAddress(raw: string): HostPort {
  if (!/^tcp:\/\//.test(raw.trim())) {
    throw new Error(`expected tcp://host:port such as tcp://127.0.0.1:26657, got "${raw}"`);
  }
  return parseHostPort(raw);
}

export function parseList(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

const WEI_UNITS: Record<string, bigint> = {
  '': 1n,
  wei: 1n,
  gwei: 10n ** 9n,
  ether: 10n ** 18n,
  aevmos: 1n,
  atoken: 1n,
};

/** Gas prices in wei: `0`, `1000000000`, `1gwei`, or the Cosmos form `1000000000aevmos`. */
export function parseWeiAmount(raw: string): bigint {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = match ? WEI_UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new Error(`expected an amount in wei such as 1000000000 or 1gwei, got "${raw}"`);
  }
  return BigInt(match[1]) * unit;
}
