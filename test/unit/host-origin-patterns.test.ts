/**
 * The allowlists of `--json-rpc.vhosts`, `--json-rpc.cors` and `--json-rpc.ws-origins`, and the
 * listener guard built on them: what a Host or Origin header matches, and what is refused.
 */
import { describe, expect, it } from '@jest/globals';
import { ListenerGuard, loopbackTrusted } from '../../src/daemon/transport/browser-guard.js';
import {
  HostAllowlist,
  OriginAllowlist,
  hostHeaderName,
  originParts,
} from '../../src/shared/host-origin-patterns.js';

const DEFAULT_VHOSTS = ['localhost', '127.0.0.1', '[::1]'];

describe('Host header names', () => {
  it.each([
    ['localhost', 'localhost'],
    ['LocalHost:8545', 'localhost'],
    ['127.0.0.1:8545', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::1]:8545', '::1'],
    ['[FE80::1]:80', 'fe80::1'],
    [' node.example ', 'node.example'],
    ['::1', '::1'],
  ])('%s is %s', (header, name) => expect(hostHeaderName(header)).toBe(name));
});

describe('HostAllowlist', () => {
  const defaults = HostAllowlist.parse(DEFAULT_VHOSTS);

  it('accepts the loopback names on any port and in any case', () => {
    for (const host of [
      'localhost',
      'localhost:8545',
      'LOCALHOST:1',
      '127.0.0.1:8545',
      '[::1]:8545',
    ])
      expect(defaults.allows(host)).toBe(true);
  });

  it('refuses other names, with or without a port', () => {
    for (const host of [
      'evil.example',
      'evil.example:8545',
      'localhost.evil.example',
      'evillocalhost',
      '',
      '127.1',
    ])
      expect(defaults.allows(host)).toBe(false);
  });

  it('always accepts IP addresses (rebinding needs a name) and a missing Host', () => {
    for (const host of ['192.0.2.7:8545', '10.0.0.1', '[2001:db8::5]:8546', undefined])
      expect(defaults.allows(host)).toBe(true);
  });

  it('adds the bound host of a listener', () => {
    const bound = defaults.including('Node.Example');
    expect(bound.allows('node.example:8545')).toBe(true);
    expect(defaults.allows('node.example:8545')).toBe(false);
  });

  it('matches *.domain below the domain only, and * anything', () => {
    const sub = HostAllowlist.parse(['*.example.com']);
    expect(sub.allows('rpc.example.com')).toBe(true);
    expect(sub.allows('a.b.EXAMPLE.com:443')).toBe(true);
    expect(sub.allows('example.com')).toBe(false);
    expect(sub.allows('evilexample.com')).toBe(false);
    expect(sub.allows('example.com.evil.example')).toBe(false);
    expect(HostAllowlist.parse(['*']).allows('anything.example')).toBe(true);
  });

  it('keeps allowing after a refusal (the remembered host is only ever an allowed one)', () => {
    const list = HostAllowlist.parse(['node.example']);
    expect(list.allows('node.example')).toBe(true);
    expect(list.allows('evil.example')).toBe(false);
    expect(list.allows('node.example')).toBe(true);
    expect(list.allows('evil.example')).toBe(false);
  });

  it.each(['http://localhost', 'localhost:8545', 'a b', '*.', '[zz::1]', 'a*.example.com'])(
    'refuses the entry %s',
    (entry) => expect(() => HostAllowlist.parse([entry])).toThrow(/is not/),
  );
});

describe('Origin headers', () => {
  it('split into scheme, name and port, with default ports made explicit', () => {
    expect(originParts('https://App.Example')).toEqual({
      scheme: 'https',
      name: 'app.example',
      port: '443',
    });
    expect(originParts('http://[::1]:3000')).toEqual({ scheme: 'http', name: '::1', port: '3000' });
    expect(originParts('null')).toBeUndefined();
    expect(originParts('http://a.example/path')).toBeUndefined();
  });
});

describe('OriginAllowlist', () => {
  const list = (...entries: string[]) => OriginAllowlist.parse(entries);

  it('allows nothing when empty', () => {
    expect(list().allows('http://localhost')).toBe(false);
  });

  it('compares scheme, name and port, ignoring case', () => {
    const app = list('https://app.example.com');
    expect(app.allows('https://app.example.com')).toBe(true);
    expect(app.allows('HTTPS://APP.EXAMPLE.COM')).toBe(true);
    expect(app.allows('https://app.example.com:8443')).toBe(true);
    expect(app.allows('http://app.example.com')).toBe(false);
    expect(app.allows('https://app.example.com.evil.example')).toBe(false);
    const pinned = list('http://localhost:3000');
    expect(pinned.allows('http://localhost:3000')).toBe(true);
    expect(pinned.allows('http://localhost:3001')).toBe(false);
    expect(pinned.allows('http://localhost')).toBe(false);
    expect(list('http://localhost:80').allows('http://localhost')).toBe(true);
  });

  it('lets a part left out match anything', () => {
    const bare = list('localhost');
    expect(bare.allows('http://localhost:5173')).toBe(true);
    expect(bare.allows('https://localhost')).toBe(true);
    expect(bare.allows('http://127.0.0.1')).toBe(false);
    expect(list('localhost:3000').allows('https://localhost:3000')).toBe(true);
  });

  it('matches IPv6 origins with brackets', () => {
    expect(list('http://[::1]:3000').allows('http://[::1]:3000')).toBe(true);
    expect(list('[::1]').allows('http://[::1]:8080')).toBe(true);
  });

  it('matches *.domain subdomains and * everything, null only with *', () => {
    const sub = list('https://*.example.com');
    expect(sub.allows('https://app.example.com')).toBe(true);
    expect(sub.allows('https://example.com')).toBe(false);
    expect(sub.allows('http://app.example.com')).toBe(false);
    expect(sub.allows('null')).toBe(false);
    expect(list('*').allows('null')).toBe(true);
    expect(list('*').allows('http://evil.example')).toBe(true);
  });

  it.each(['https://app.example.com/', 'https://', 'app.example.com:port', 'ftp://a b'])(
    'refuses the entry %s',
    (entry) => expect(() => list(entry)).toThrow(/is not (an origin|a host name)/),
  );
});

describe('ListenerGuard', () => {
  const guard = new ListenerGuard(
    {
      vhosts: DEFAULT_VHOSTS,
      corsOrigins: ['https://app.example'],
      wsOrigins: ['http://localhost:3000'],
    },
    'node.lan',
    'POST, OPTIONS',
  );

  it('refuses unknown hosts with 403 naming --json-rpc.vhosts', () => {
    expect(guard.checkRequest({ host: 'evil.example:8545' })).toEqual({
      status: 403,
      message: 'invalid host specified: evil.example; add it with --json-rpc.vhosts',
    });
    expect(guard.checkUpgrade({ host: 'evil.example' })?.status).toBe(403);
    expect(guard.checkRequest({ host: 'node.lan:8545' })).toBeUndefined();
  });

  it('checks HTTP origins against --json-rpc.cors and upgrades against --json-rpc.ws-origins', () => {
    expect(
      guard.checkRequest({ host: 'localhost', origin: 'https://app.example' }),
    ).toBeUndefined();
    expect(guard.checkRequest({ host: 'localhost', origin: 'http://localhost:3000' })).toEqual({
      status: 403,
      message: 'origin http://localhost:3000 not allowed; add it with --json-rpc.cors',
    });
    expect(
      guard.checkUpgrade({ host: 'localhost', origin: 'http://localhost:3000' }),
    ).toBeUndefined();
    expect(guard.checkUpgrade({ host: 'localhost', origin: 'https://app.example' })).toEqual({
      status: 403,
      message: 'origin https://app.example not allowed; add it with --json-rpc.ws-origins',
    });
  });

  it('lets requests without Origin through and gives them no CORS headers', () => {
    expect(guard.checkRequest({ host: '127.0.0.1:8545' })).toBeUndefined();
    expect(guard.corsHeaders({ host: '127.0.0.1' })).toBeUndefined();
    expect(guard.preflightHeaders({})).toEqual({ Allow: 'POST, OPTIONS' });
  });

  it('answers allowed preflights with the CORS headers', () => {
    expect(guard.preflightHeaders({ origin: 'https://app.example' })).toEqual({
      Allow: 'POST, OPTIONS',
      'Access-Control-Allow-Origin': 'https://app.example',
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': 'Content-Type, Authorization',
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    });
  });

  it('never gives loopback trust to a request that carries an Origin', () => {
    expect(loopbackTrusted(true, {})).toBe(true);
    expect(loopbackTrusted(true, { origin: 'https://app.example' })).toBe(false);
    expect(loopbackTrusted(false, {})).toBe(false);
  });
});
