/**
 * The allowlists behind `--json-rpc.vhosts`, `--json-rpc.cors` and `--json-rpc.ws-origins`:
 * parsing their entries and matching a request's `Host` and `Origin` headers against them.
 * Names compare ignoring letter case, IPv6 addresses with or without brackets.
 *
 * - A host entry is `*` (any host), a name or address (`localhost`, `127.0.0.1`, `[::1]`), or
 *   `*.example.com` (any name below example.com, not example.com itself). The port of the
 *   `Host` header is ignored, as geth does.
 * - An origin entry is `*` (any origin) or `[scheme://]host[:port]`, the host possibly
 *   `*.example.com`; a part left out matches anything (`localhost` allows every scheme and port
 *   of localhost, `https://*.example.com` any https subdomain on any port).
 */
import { SocketAddress, isIPv4 } from 'node:net';

/** Matches one host name, already lower-cased and without IPv6 brackets. */
type NameMatcher = (name: string) => boolean;

interface OriginPattern {
  scheme: string | undefined;
  matchesName: NameMatcher;
  port: string | undefined;
}

/** The parts of an origin: `http`, `app.example` (or `::1`), `3000` (the scheme's default when left out). */
interface OriginParts {
  scheme: string;
  name: string;
  port: string;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  http: '80',
  https: '443',
  ws: '80',
  wss: '443',
};
const NAME = /^(?:\*\.)?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$|^\[[0-9a-f:.]+\]$/;
const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[^:/?#@[\]]+)(?::(\d{1,5}))?$/;
const ORIGIN_ENTRY =
  /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*|\[[0-9a-f:.]+\]|[^:/?#@[\]]+)(?::(\d{1,5}))?$/;

/**
 * Whether `text` is an IPv6 address, decided by the system's address parser. `net.isIP` decides
 * it with a regular expression whose first use costs about 6 ms, at every start of the daemon
 * (its default hosts include `[::1]`) and of the CLI commands that check a host.
 */
function isIPv6(text: string): boolean {
  try {
    new SocketAddress({ address: text, family: 'ipv6' });
    return true;
  } catch {
    return false;
  }
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** A host entry as a matcher; throws a message naming the entry when it is not one. */
function nameMatcher(entry: string): NameMatcher {
  if (entry === '*') return () => true;
  if (!NAME.test(entry)) {
    throw new Error(
      `"${entry}" is not a host name, an address, "*" or "*.domain" (give no scheme or port)`,
    );
  }
  if (entry.startsWith('*.')) {
    const suffix = entry.slice(1);
    return (name) => name.length > suffix.length && name.endsWith(suffix);
  }
  const exact = unbracket(entry);
  if (exact.includes(':') && !isIPv6(exact)) {
    throw new Error(`"${entry}" is not an IPv6 address`);
  }
  return (name) => name === exact;
}

/** The host name of a `Host` header value: lower case, port and IPv6 brackets removed. */
export function hostHeaderName(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end > 0 ? host.slice(1, end) : host;
  }
  const colon = host.indexOf(':');
  // Several colons without brackets: a bare IPv6 address (it passes as an address) or garbage.
  return colon >= 0 && host.indexOf(':', colon + 1) < 0 ? host.slice(0, colon) : host;
}

/** An `Origin` header split into its parts, or undefined for `null` and anything malformed. */
export function originParts(value: string): OriginParts | undefined {
  const match = ORIGIN.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, scheme, host, port] = match;
  return { scheme, name: unbracket(host), port: port || (DEFAULT_PORTS[scheme] ?? '') };
}

/**
 * Which `Host` headers a listener serves. A host given as an IP address always passes: DNS
 * rebinding needs the browser to look a name up, so only names are checked (geth does the
 * same). A request without `Host` (HTTP/1.0) passes too: every browser sends one.
 */
export class HostAllowlist {
  private lastAllowed: string | undefined;

  private constructor(private readonly matchers: readonly NameMatcher[]) {}

  /** Throws a message naming the bad entry. */
  static parse(entries: readonly string[]): HostAllowlist {
    return new HostAllowlist(entries.map((entry) => nameMatcher(entry.trim().toLowerCase())));
  }

  /** This list plus one more name or address (the host a listener is bound to, unbracketed). */
  including(host: string): HostAllowlist {
    const name = unbracket(host.toLowerCase());
    return new HostAllowlist([...this.matchers, (candidate) => candidate === name]);
  }

  allows(hostHeader: string | undefined): boolean {
    // Clients repeat the same Host on every request: remember the last one that passed.
    if (hostHeader === undefined || hostHeader === this.lastAllowed) return true;
    const name = hostHeaderName(hostHeader);
    const allowed =
      isIPv4(name) ||
      (name.includes(':') && isIPv6(name)) ||
      this.matchers.some((matches) => matches(name));
    if (allowed) this.lastAllowed = hostHeader;
    return allowed;
  }
}

/**
 * Which browser origins a listener serves. `null` (sandboxed frames, `file:` pages) and
 * malformed origins match only `*`.
 */
export class OriginAllowlist {
  private constructor(
    private readonly patterns: readonly OriginPattern[],
    private readonly any: boolean,
  ) {}

  /** Throws a message naming the bad entry. */
  static parse(entries: readonly string[]): OriginAllowlist {
    const patterns: OriginPattern[] = [];
    let any = false;
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (entry === '*') {
        any = true;
        continue;
      }
      const match = ORIGIN_ENTRY.exec(entry);
      if (!match) {
        throw new Error(
          `"${raw}" is not an origin such as https://app.example.com, localhost:3000 or *`,
        );
      }
      const [, scheme, host, port] = match;
      patterns.push({
        scheme,
        matchesName: nameMatcher(host),
        port,
      });
    }
    return new OriginAllowlist(patterns, any);
  }

  allows(origin: string): boolean {
    if (this.any) return true;
    const parts = originParts(origin);
    if (!parts) return false;
    return this.patterns.some(
      (pattern) =>
        (pattern.scheme === undefined || pattern.scheme === parts.scheme) &&
        (pattern.port === undefined || pattern.port === parts.port) &&
        pattern.matchesName(parts.name),
    );
  }
}
