import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseByteSize,
  parseDuration,
  parseHostPort,
  parseTcpListenAddress,
  parseWeiAmount,
} from '../../src/shared/config/option-parsers.js';
import { envVarName } from '../../src/shared/config/options.js';
import { readConfigFile, resolveConfig } from '../../src/shared/config/resolve-config.js';
import { evmThreadCount } from '../../src/daemon/call-threads/call-thread-pool.js';

describe('option parsers', () => {
  it('parses host:port forms, including port 0 and IPv6', () => {
    expect(parseHostPort('127.0.0.1:8545')).toEqual({ host: '127.0.0.1', port: 8545 });
    expect(parseHostPort('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseHostPort(':8546')).toEqual({ host: '0.0.0.0', port: 8546 });
    expect(() => parseHostPort('localhost')).toThrow('expected host:port');
    expect(() => parseHostPort('1.2.3.4:70000')).toThrow('port 70000 is out of range');
    expect(parseTcpListenAddress('tcp://127.0.0.1:26657')).toEqual({
      host: '127.0.0.1',
      port: 26657,
    });
    expect(() => parseTcpListenAddress('127.0.0.1:26657')).toThrow('expected tcp://host:port');
  });

  it('parses sizes, durations and wei amounts with units', () => {
    expect(parseByteSize('5MiB')).toBe(5 * 1024 * 1024);
    expect(parseByteSize('25MB')).toBe(25_000_000);
    expect(() => parseByteSize('5 parsecs')).toThrow('expected a size');
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('5m')).toBe(300_000);
    expect(() => parseDuration('-1s')).toThrow('expected a duration');
    // Past the longest timer Node waits 1 ms instead: a block or a collection every millisecond.
    expect(parseDuration('596h')).toBe(596 * 3_600_000);
    expect(parseDuration('2147483647ms')).toBe(2 ** 31 - 1);
    expect(() => parseDuration('2147483648ms')).toThrow('at most 596h');
    expect(() => parseDuration('999999h')).toThrow(
      'at most 596h (the longest timer), got "999999h"',
    );
    expect(() => parseDuration('99999999999999999999')).toThrow('at most 596h');
    expect(parseWeiAmount('1gwei')).toBe(1_000_000_000n);
    expect(parseWeiAmount('7aevmos')).toBe(7n);
    expect(() => parseWeiAmount('1.5gwei')).toThrow('expected an amount in wei');
  });

  it('names environment variables after the option', () => {
    expect(envVarName('json-rpc.ws-address')).toBe('NODE_CLI_JSON_RPC_WS_ADDRESS');
  });
});

describe('resolveConfig', () => {
  it('takes flag > environment > config file > default, and reports the source', () => {
    const resolved = resolveConfig({
      flags: { 'block-time': '2s' },
      env: { NODE_CLI_BLOCK_TIME: '3s', NODE_CLI_CHAIN_ID: '12' },
      file: { 'block-time': '4s', 'chain-id': '13', 'log-level': 'debug' },
    });
    expect(resolved.config['block-time']).toBe(2000);
    expect(resolved.config['chain-id']).toBe(12);
    expect(resolved.config['log-level']).toBe('debug');
    expect(resolved.config['json-rpc.address']).toEqual({ host: '127.0.0.1', port: 8545 });
    expect(resolved.sources).toMatchObject({
      'block-time': 'flag',
      'chain-id': 'environment',
      'log-level': 'config file',
      'json-rpc.address': 'default',
    });
  });

  it('names the source of a bad value', () => {
    expect(() =>
      resolveConfig({ flags: {}, env: { NODE_CLI_BLOCK_TIME: 'soon' }, file: {} }),
    ).toThrow(
      'invalid value for environment variable NODE_CLI_BLOCK_TIME: expected a duration such as 0, 500ms, 1s or 5m, got "soon"',
    );
    expect(() =>
      resolveConfig({
        flags: {},
        env: {},
        file: { 'json-rpc.address': 'nowhere' },
        configFilePath: '/d/config.json',
      }),
    ).toThrow('invalid value for "json-rpc.address" in /d/config.json');
  });

  it('bounds the minimum gas price at 2^192-1 wei, from every source', () => {
    const largest = 2n ** 192n - 1n;
    const resolve = (sources: { flags?: Record<string, string>; env?: Record<string, string> }) =>
      resolveConfig({ flags: {}, env: {}, file: {}, ...sources }).config['minimum-gas-prices'];
    expect(resolve({ flags: { 'minimum-gas-prices': largest.toString() } })).toBe(largest);
    expect(() =>
      resolve({ env: { NODE_CLI_MINIMUM_GAS_PRICES: (largest + 1n).toString() } }),
    ).toThrow(
      'invalid value for environment variable NODE_CLI_MINIMUM_GAS_PRICES: must be at most 2^192-1 wei',
    );
    expect(() =>
      resolve({
        flags: {
          'minimum-gas-prices':
            '10000000000000000000000000000000000000000000000000000000000000000000000000000000ether',
        },
      }),
    ).toThrow('invalid value for --minimum-gas-prices: must be at most 2^192-1 wei');
  });

  it("reads the pool's limits, with geth's defaults and a lifetime above zero", () => {
    const defaults = resolveConfig({ flags: {}, env: {}, file: {} }).config;
    expect([
      defaults['txpool.accountqueue'],
      defaults['txpool.globalslots'],
      defaults['txpool.pricebump'],
      defaults['txpool.lifetime'],
    ]).toEqual([undefined, 6144, 10, 3 * 3600 * 1000]);
    const set = resolveConfig({
      flags: { 'txpool.lifetime': '90s', 'txpool.accountqueue': '0' },
      env: { NODE_CLI_TXPOOL_PRICEBUMP: '25' },
      file: {},
    }).config;
    expect(set['txpool.lifetime']).toBe(90_000);
    expect(set['txpool.accountqueue']).toBe(0);
    expect(set['txpool.pricebump']).toBe(25);
    expect(() => resolveConfig({ flags: { 'txpool.lifetime': '0' }, env: {}, file: {} })).toThrow(
      'invalid value for --txpool.lifetime: expected a duration above 0 such as 30s or 3h, got "0"',
    );
    expect(() =>
      resolveConfig({ flags: { 'txpool.globalslots': '0' }, env: {}, file: {} }),
    ).toThrow('invalid value for --txpool.globalslots');
  });

  it('reads the Host and Origin lists: loopback names and no browser origin by default', () => {
    const defaults = resolveConfig({ flags: {}, env: {}, file: {} }).config;
    expect(defaults['json-rpc.vhosts']).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(defaults['json-rpc.cors']).toEqual([]);
    expect(defaults['json-rpc.ws-origins']).toEqual([]);
    const set = resolveConfig({
      flags: { 'json-rpc.vhosts': 'node.example, *.example.org' },
      env: { NODE_CLI_JSON_RPC_WS_ORIGINS: 'http://localhost:3000' },
      file: { 'json-rpc.cors': 'https://app.example' },
    }).config;
    expect(set['json-rpc.vhosts']).toEqual(['node.example', '*.example.org']);
    expect(set['json-rpc.ws-origins']).toEqual(['http://localhost:3000']);
    expect(set['json-rpc.cors']).toEqual(['https://app.example']);
    expect(() =>
      resolveConfig({ flags: { 'json-rpc.vhosts': 'node.example:8545' }, env: {}, file: {} }),
    ).toThrow('invalid value for --json-rpc.vhosts: "node.example:8545" is not a host name');
    expect(() =>
      resolveConfig({ flags: {}, env: { NODE_CLI_JSON_RPC_CORS: 'https://a.example/' }, file: {} }),
    ).toThrow('invalid value for environment variable NODE_CLI_JSON_RPC_CORS');
  });

  it('reads the journal window: 0 by default, at most a second', () => {
    const read = (raw?: string) =>
      resolveConfig({
        flags: raw === undefined ? {} : { 'txpool.journal-interval': raw },
        env: {},
        file: {},
      }).config['txpool.journal-interval'];
    expect(read()).toBe(0);
    expect(read('5ms')).toBe(5);
    expect(() => read('2s')).toThrow(
      'invalid value for --txpool.journal-interval: expected a duration from 0 to 1000ms, got "2s"',
    );
  });

  it('reads the call thread count, leaving the default to the number of cores', () => {
    const read = (value?: string) =>
      resolveConfig({
        flags: value === undefined ? {} : { 'json-rpc.evm-threads': value },
        env: {},
        file: {},
      }).config['json-rpc.evm-threads'];
    expect(read()).toBeUndefined();
    expect(read('0')).toBe(0);
    expect(read('64')).toBe(64);
    expect(() => read('65')).toThrow(
      'invalid value for --json-rpc.evm-threads: expected at most 64 threads, got 65',
    );
    expect(() => read('-1')).toThrow('invalid value for --json-rpc.evm-threads');
    expect(evmThreadCount(undefined, 2)).toBe(1);
    expect(evmThreadCount(undefined, 1)).toBe(1);
    expect(evmThreadCount(undefined, 32)).toBe(3);
    expect(evmThreadCount(8, 2)).toBe(8);
  });

  it('reads the config file strictly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-cli-config-'));
    try {
      const path = join(dir, 'config.json');
      expect(readConfigFile(path)).toEqual({});
      writeFileSync(
        path,
        JSON.stringify({ 'chain-id': 5, 'evm.rpc.api': ['eth', 'net'], dev: false }),
      );
      expect(readConfigFile(path)).toEqual({
        'chain-id': '5',
        'evm.rpc.api': 'eth,net',
        dev: 'false',
      });
      writeFileSync(path, JSON.stringify({ 'no-such-option': 1 }));
      expect(() => readConfigFile(path)).toThrow('unknown option "no-such-option"');
      writeFileSync(path, '{');
      expect(() => readConfigFile(path)).toThrow('is not valid JSON');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
