import { describe, expect, it } from '@jest/globals';
import { parseQuery } from '../../src/daemon/events/query/index.js';
import { handleRequestText } from '../../src/daemon/consensus-rpc/request-handler.js';
import { RouteArgs } from '../../src/daemon/consensus-rpc/route-args.js';
import { parseClientQuery } from '../../src/daemon/consensus-rpc/client-query.js';
import { ClientSubscriptions } from '../../src/daemon/consensus-rpc/subscriptions.js';
import { heightRange } from '../../src/daemon/consensus-rpc/tx-search.js';
import { InvalidInputError, LimitExceededError, NotFoundError } from '../../src/shared/errors.js';

const ADDRESS_KEYS = new Set(['ethereum_tx.sender', 'ethereum_tx.recipient']);
const query = (text: string) => parseQuery(text, { caseInsensitiveKeys: ADDRESS_KEYS });
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('consensus subscriptions', () => {
  it('matches addresses ignoring case and keeps subscription order', () => {
    const subscriptions = new ClientSubscriptions(5);
    subscriptions.add({
      idText: '"a"',
      queryText: `tm.event='Tx' AND ethereum_tx.recipient='${RECIPIENT.toLowerCase()}'`,
      query: query(`tm.event='Tx' AND ethereum_tx.recipient='${RECIPIENT.toLowerCase()}'`),
    });
    subscriptions.add({ idText: '7', queryText: "tm.event='Tx'", query: query("tm.event='Tx'") });
    const toRecipient = { 'tm.event': ['Tx'], 'ethereum_tx.recipient': [RECIPIENT] };
    const elsewhere = { 'tm.event': ['Tx'], 'ethereum_tx.recipient': ['0x' + '11'.repeat(20)] };
    expect(subscriptions.matching(toRecipient).map((s) => s.idText)).toEqual(['"a"', '7']);
    expect(subscriptions.matching(elsewhere).map((s) => s.idText)).toEqual(['7']);
    expect(subscriptions.matching({ 'tm.event': ['NewBlock'] })).toEqual([]);
  });

  it('treats spellings of one query as one subscription, and enforces the limit', () => {
    const subscriptions = new ClientSubscriptions(2);
    subscriptions.add({ idText: '1', queryText: "tm.event='Tx'", query: query("tm.event='Tx'") });
    expect(() =>
      subscriptions.add({
        idText: '2',
        queryText: "tm.event = 'Tx'",
        query: query("tm.event = 'Tx'"),
      }),
    ).toThrow('already subscribed');
    subscriptions.add({ idText: '3', queryText: 'a.b EXISTS', query: query('a.b EXISTS') });
    expect(() =>
      subscriptions.add({ idText: '4', queryText: 'c.d EXISTS', query: query('c.d EXISTS') }),
    ).toThrow('max_subscriptions_per_client 2 reached');
    subscriptions.remove(query("tm.event =   'Tx'"));
    expect(subscriptions.size).toBe(1);
    expect(() => subscriptions.remove(query("tm.event='Tx'"))).toThrow(NotFoundError);
    subscriptions.removeAll();
    expect(() => subscriptions.removeAll()).toThrow('subscription not found');
  });
});

describe('consensus client queries', () => {
  const limits = { maxLength: 40, maxConditions: 2 };

  it('refuses a query longer than the limit before parsing it, counting UTF-8 bytes', () => {
    expect(() => parseClientQuery(`a.b='${'x'.repeat(40)}'`, limits)).toThrow(
      new LimitExceededError(
        'maximum query length exceeded: more than 40 bytes (--rpc.max-query-length)',
      ),
    );
    expect(() => parseClientQuery(`a.b='${'é'.repeat(18)}'`, limits)).toThrow(LimitExceededError);
    expect(() => parseClientQuery('('.repeat(41), limits)).toThrow(LimitExceededError);
  });

  it('refuses more conditions than the limit, and reports syntax errors as invalid input', () => {
    expect(parseClientQuery('a.b EXISTS AND c.d EXISTS', limits).conditions).toHaveLength(2);
    expect(() => parseClientQuery('a.b EXISTS AND c.d EXISTS AND e.f EXISTS', limits)).toThrow(
      'too many conditions in query: 3, the limit is 2 (--rpc.max-query-conditions)',
    );
    expect(() => parseClientQuery('a.b ==', limits)).toThrow(InvalidInputError);
  });

  it('matches each distinct query once per event, however many clients hold it', () => {
    const clients = [new ClientSubscriptions(5), new ClientSubscriptions(5)];
    let evaluations = 0;
    for (const [index, client] of clients.entries()) {
      const counted = query("tm.event='Tx'");
      const matches = counted.matches.bind(counted);
      counted.matches = (events) => {
        evaluations++;
        return matches(events);
      };
      client.add({ idText: String(index), queryText: "tm.event='Tx'", query: counted });
    }
    const known = new Map<string, boolean>();
    const events = { 'tm.event': ['Tx'] };
    expect(clients.map((client) => client.matching(events, known).length)).toEqual([1, 1]);
    expect(evaluations).toBe(1);
  });
});

describe('consensus route arguments', () => {
  const hashHex = 'ab'.repeat(32);

  it('reads the URI form: quoted strings, integers, 0x hashes', () => {
    const args = RouteArgs.fromSearchParams(
      new URLSearchParams(`query="tm.event='Tx'"&page=2&hash=0x${hashHex}&prove=false`),
      ['query', 'page', 'hash', 'prove'],
    );
    expect(args.string('query')).toBe("tm.event='Tx'");
    expect(args.integer('page')).toBe(2);
    expect(Buffer.from(args.hash('hash')!).toString('hex')).toBe(hashHex);
    expect(args.boolean('prove')).toBe(false);
    expect(args.integer('missing')).toBeUndefined();
  });

  it('reads named and positional JSON params, and base64 hashes', () => {
    const base64Hash = Buffer.from(hashHex, 'hex').toString('base64');
    const named = RouteArgs.fromJsonParams({ hash: base64Hash, height: '12' }, ['hash', 'height']);
    expect(Buffer.from(named.hash('hash')!).toString('hex')).toBe(hashHex);
    expect(named.integer('height')).toBe(12);
    const positional = RouteArgs.fromJsonParams([7], ['height']);
    expect(positional.integer('height')).toBe(7);
  });

  it('names the parameter that is wrong', () => {
    expect(() =>
      RouteArgs.fromSearchParams(new URLSearchParams('height=-1'), ['height']).integer('height'),
    ).toThrow('height must be a non-negative integer');
    expect(() => RouteArgs.fromJsonParams({ nope: 1 }, ['height'])).toThrow(
      'unknown parameter nope',
    );
    expect(() => RouteArgs.fromJsonParams([1, 2], ['height'])).toThrow(InvalidInputError);
    expect(() => RouteArgs.fromJsonParams({ hash: 'zz' }, ['hash']).hash('hash')).toThrow(
      'hash must be a 32-byte hash',
    );
  });
});

describe('consensus JSON-RPC envelopes', () => {
  const echo = (method: string, params: unknown) => {
    if (method === 'fail') throw new InvalidInputError('query is required');
    if (method === 'missing') throw new NotFoundError('subscription not found');
    if (method === 'crash') throw new Error('secret detail');
    return { method, params };
  };
  const limits = { maxNesting: 8, batchRequestLimit: 3, batchResponseMaxSize: 200 };
  const handle = (text: string) => {
    const reply = handleRequestText(text, limits, echo, () => {});
    return reply === undefined ? undefined : JSON.parse(reply);
  };

  it('refuses nesting deeper than the limit before parsing, naming the flag', () => {
    const call = (params: string) => `{"jsonrpc":"2.0","id":1,"method":"echo","params":${params}}`;
    expect(handle(call('[[[[[["[[[[[[[[[[[["]]]]]]')).result.params).toHaveLength(1);
    expect(handle(call(`${'['.repeat(5000)}${']'.repeat(5000)}`))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request',
        data: 'invalid request: JSON nesting depth exceeds 8 (--rpc.max-nesting)',
      },
    });
  });

  it('refuses batches over the call limit and answers calls past the response size with a limit error', () => {
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'echo', params: ['x'.repeat(40)] });
    const tooMany = handle(JSON.stringify([1, 2, 3, 4].map(call)));
    expect(tooMany.error).toMatchObject({ code: -32005 });
    expect(tooMany.error.data).toMatch(
      /4 calls exceed the limit of 3 \(--rpc.batch-request-limit\)/,
    );
    const replies = handle(JSON.stringify([1, 2, 3].map(call)));
    expect(replies[0].result).toBeDefined();
    expect(replies[2]).toMatchObject({ id: 3, error: { code: -32005 } });
    expect(replies[2].error.data).toMatch(/--rpc.batch-response-max-size/);
  });

  it('echoes string and number ids and answers notifications with nothing', () => {
    expect(handle('{"jsonrpc":"2.0","id":"x1","method":"health"}')).toEqual({
      jsonrpc: '2.0',
      id: 'x1',
      result: { method: 'health' },
    });
    expect(handle('{"jsonrpc":"2.0","id":0,"method":"health","params":[1]}').id).toBe(0);
    expect(handle('{"jsonrpc":"2.0","method":"health"}')).toBeUndefined();
  });

  it('gives errors in CometBFT shape with the reason in data', () => {
    expect(handle('{"jsonrpc":"2.0","id":1,"method":"fail"}').error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: 'query is required',
    });
    expect(handle('{"jsonrpc":"2.0","id":1,"method":"missing"}').error).toEqual({
      code: -32000,
      message: 'Server error',
      data: 'subscription not found',
    });
    expect(handle('{"jsonrpc":"2.0","id":1,"method":"crash"}').error).toEqual({
      code: -32603,
      message: 'Internal error',
      data: 'internal error',
    });
    expect(handle('{not json').error.code).toBe(-32700);
    expect(handle('{"id":1,"method":"x"}').error.code).toBe(-32600);
    expect(handle('[]').error.code).toBe(-32600);
  });

  it('answers batches in order, leaving out notifications', () => {
    const replies = handle(
      '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":2,"method":"fail"}]',
    );
    expect(replies.map((r: { id: number }) => r.id)).toEqual([1, 2]);
    expect(replies[1].error.code).toBe(-32602);
  });
});

describe('tx_search height range', () => {
  it('narrows the scanned heights with tx.height conditions', () => {
    expect(heightRange(query("tm.event='Tx'"), 50n)).toEqual({ from: 1n, to: 50n });
    expect(heightRange(query('tx.height = 7'), 50n)).toEqual({ from: 7n, to: 7n });
    expect(heightRange(query('tx.height > 10 AND tx.height <= 20'), 50n)).toEqual({
      from: 11n,
      to: 20n,
    });
    expect(heightRange(query('tx.height >= 40 AND tx.height < 100'), 50n)).toEqual({
      from: 40n,
      to: 50n,
    });
  });
});
