import { describe, expect, it } from '@jest/globals';
import { InvalidInputError } from '../../src/shared/errors.js';
import { QuerySyntaxError, parseQuery } from '../../src/daemon/events/query/index.js';

describe('parseQuery accepts valid queries', () => {
  it.each([
    ["tm.event='Tx'", "tm.event = 'Tx'"],
    [
      "tm.event='Tx' AND ethereum_tx.recipient='0xabc0000000000000000000000000000000000def'",
      "tm.event = 'Tx' AND ethereum_tx.recipient = '0xabc0000000000000000000000000000000000def'",
    ],
    ["tm.event = 'NewBlock'", "tm.event = 'NewBlock'"],
    ['  tx.height   >=   5  ', 'tx.height >= 5'],
    ['tx.height>5', 'tx.height > 5'],
    ['tx.height<5', 'tx.height < 5'],
    ['tx.height<=5', 'tx.height <= 5'],
    ['tx.height = 0', 'tx.height = 0'],
    ['transfer.amount = 3.25', 'transfer.amount = 3.25'],
    ['transfer.amount > -7', 'transfer.amount > -7'],
    ['transfer.amount < -0.5', 'transfer.amount < -0.5'],
    [
      'transfer.amount = 123456789012345678901234567890',
      'transfer.amount = 123456789012345678901234567890',
    ],
    ['block.date = DATE 2013-05-03', 'block.date = DATE 2013-05-03'],
    ['block.date >= DATE   2013-05-03', 'block.date >= DATE 2013-05-03'],
    ['block.time < TIME 2013-05-03T14:45:00Z', 'block.time < TIME 2013-05-03T14:45:00Z'],
    ['block.time > TIME 2021-11-23T22:04:19-09:00', 'block.time > TIME 2021-11-23T22:04:19-09:00'],
    [
      'block.time = TIME 2013-05-03T14:45:00.123456789+01:30',
      'block.time = TIME 2013-05-03T14:45:00.123456789+01:30',
    ],
    ["message.action CONTAINS 'send'", "message.action CONTAINS 'send'"],
    ["message.action contains 'send'", "message.action CONTAINS 'send'"],
    ['ethereum_tx.ethereumTxFailed EXISTS', 'ethereum_tx.ethereumTxFailed EXISTS'],
    ['ethereum_tx exists', 'ethereum_tx EXISTS'],
    ["tm.event='Tx' and tx.height>3", "tm.event = 'Tx' AND tx.height > 3"],
    [
      "tm.event='Tx' And tx.height EXISTS AND message.module CONTAINS 'bank'",
      "tm.event = 'Tx' AND tx.height EXISTS AND message.module CONTAINS 'bank'",
    ],
    ["\ttm.event\n=\n'Tx'\tAND\ntx.hash EXISTS", "tm.event = 'Tx' AND tx.hash EXISTS"],
    ["my-module.some_key-2 = 'x'", "my-module.some_key-2 = 'x'"],
    ['_private.key EXISTS', '_private.key EXISTS'],
    ["ключ.имя = 'значение'", "ключ.имя = 'значение'"],
    ["tx.memo = ''", "tx.memo = ''"],
    ["tx.memo = 'a b  AND c = 5'", "tx.memo = 'a b  AND c = 5'"],
  ])('%s', (text, canonical) => {
    expect(parseQuery(text).toString()).toBe(canonical);
  });

  it('builds a typed AST', () => {
    const query = parseQuery(
      "tm.event='Tx' AND a.n > -1.50 AND a.d = DATE 2013-05-03 AND a.t <= TIME 1970-01-01T00:00:01Z AND a.s CONTAINS 'x' AND a.e EXISTS",
    );
    expect(query.conditions).toEqual([
      { key: 'tm.event', operator: '=', operand: { kind: 'string', value: 'Tx' } },
      {
        key: 'a.n',
        operator: '>',
        operand: { kind: 'number', text: '-1.50', value: { units: -150n, scale: 2 } },
      },
      {
        key: 'a.d',
        operator: '=',
        operand: { kind: 'date', text: '2013-05-03', instant: 1367539200000000000n },
      },
      {
        key: 'a.t',
        operator: '<=',
        operand: { kind: 'time', text: '1970-01-01T00:00:01Z', instant: 1000000000n },
      },
      { key: 'a.s', operator: 'CONTAINS', operand: { kind: 'string', value: 'x' } },
      { key: 'a.e', operator: 'EXISTS' },
    ]);
  });

  it('round-trips through the canonical text', () => {
    const texts = [
      "tm.event='Tx' and ethereum_tx.recipient='0xAbC'",
      'a.b>=DATE 2020-02-29 AND a.c<TIME 2020-02-29T23:59:59.5-00:30',
      "x.y   contains   'needle'  AND  x.z exists",
      'n.v = -0.001',
    ];
    for (const text of texts) {
      const canonical = parseQuery(text).toString();
      expect(parseQuery(canonical).toString()).toBe(canonical);
      expect(parseQuery(canonical).conditions).toEqual(parseQuery(text).conditions);
    }
  });
});

describe('parseQuery rejects invalid queries with a precise message', () => {
  const operators = 'an operator (=, <, <=, >, >=, CONTAINS, EXISTS)';
  it.each([
    ['', 0, 'expected a key (e.g. tm.event), found end of query'],
    ['   ', 3, 'expected a key (e.g. tm.event), found end of query'],
    ["message.action=='send'", 14, `expected ${operators}, found "=="`],
    ["tm.event != 'Tx'", 9, `expected ${operators}, found "!="`],
    ["tm.event =< 'Tx'", 9, `expected ${operators}, found "=<"`],
    ["tm.event LIKE 'Tx'", 9, `expected ${operators}, found "LIKE"`],
    ['tm.event', 8, `expected ${operators}, found end of query`],
    ["tm.event 'Tx'", 9, `expected ${operators}, found "'Tx'"`],
    ["= 'Tx'", 0, 'expected a key (e.g. tm.event), found "="'],
    ["'Tx' = tm.event", 0, `expected a key (e.g. tm.event), found "'Tx'"`],
    ['5 = 5', 0, 'expected a key (e.g. tm.event), found "5"'],
    ['.tm.event EXISTS', 0, 'expected a key (e.g. tm.event), found "."'],
    ['-tm.event EXISTS', 0, 'expected a key (e.g. tm.event), found "-"'],
    ['AND = 5', 0, 'expected a key (e.g. tm.event), found "AND"'],
    ['exists EXISTS', 0, 'expected a key (e.g. tm.event), found "exists"'],
    [
      'tm.event =',
      10,
      'expected a value (quoted string, number, DATE or TIME) after =, found end of query',
    ],
    [
      'tm.event = Tx',
      11,
      'expected a value (quoted string, number, DATE or TIME) after =, found "Tx"',
    ],
    ["tx.height > 'five'", 12, `expected a number, DATE or TIME after >, found "'five'"`],
    ['tx.height <= ', 13, 'expected a number, DATE or TIME after <=, found end of query'],
    ['tx.memo CONTAINS 5', 17, 'expected a quoted string after CONTAINS, found "5"'],
    [
      'tx.memo CONTAINS DATE 2013-05-03',
      17,
      'expected a quoted string after CONTAINS, found "DATE 2013-05-03"',
    ],
    ["tm.event='Tx' tx.height=5", 14, 'expected AND or end of query, found "tx.height"'],
    ["tm.event='Tx' AND", 17, 'expected a key (e.g. tm.event), found end of query'],
    ["tm.event='Tx' AND AND a.b EXISTS", 18, 'expected a key (e.g. tm.event), found "AND"'],
    ["tm.event='Tx' OR tx.height=5", 14, 'expected AND or end of query, found "OR"'],
    ["tm.event='Tx' && tx.height=5", 14, 'expected AND or end of query, found "&"'],
    ['a.b EXISTS 5', 11, 'expected AND or end of query, found "5"'],
    ["a.b = 5'x'", 7, `expected AND or end of query, found "'x'"`],
    ["tm.event='Tx", 9, "unterminated string, expected a closing '"],
    ['tm.event="Tx"', 9, "double quotes are not allowed; quote strings with '"],
    ['tx.height = 5abc', 12, 'malformed number "5abc"'],
    ['tx.height = 1.2.3', 12, 'malformed number "1.2.3"'],
    ['tx.height = 5.', 12, 'malformed number "5."'],
    ['tx.height = -5-', 12, 'malformed number "-5-"'],
    ['a.d = DATE 2013-13-01', 11, 'expected a date YYYY-MM-DD after DATE, found "2013-13-01"'],
    ['a.d = DATE 2013-02-29', 11, 'expected a date YYYY-MM-DD after DATE, found "2013-02-29"'],
    ['a.d = DATE 2013-5-3', 11, 'expected a date YYYY-MM-DD after DATE, found "2013-5-3"'],
    ['a.d = DATE ', 11, 'expected a date YYYY-MM-DD after DATE, found end of query'],
    ['a.d = DATE 3000-01-01', 11, 'DATE year 3000 is out of range (1900 to 2999)'],
    ['a.d = DATE 1899-12-31', 11, 'DATE year 1899 is out of range (1900 to 2999)'],
    [
      'a.t = TIME 2013-05-03',
      11,
      'expected an RFC 3339 time like 2013-05-03T14:45:00Z after TIME, found "2013-05-03"',
    ],
    [
      'a.t = TIME 2013-05-03T14:45:00',
      11,
      'expected an RFC 3339 time like 2013-05-03T14:45:00Z after TIME, found "2013-05-03T14:45:00"',
    ],
    [
      'a.t = TIME 2013-05-03T24:00:00Z',
      11,
      'expected an RFC 3339 time like 2013-05-03T14:45:00Z after TIME, found "2013-05-03T24:00:00Z"',
    ],
    [
      'a.t = TIME 2013-05-03 14:45:00Z',
      11,
      'expected an RFC 3339 time like 2013-05-03T14:45:00Z after TIME, found "2013-05-03"',
    ],
    ['a.t = TIME 0999-01-01T00:00:00Z', 11, 'TIME year 999 is out of range (1900 to 2999)'],
    [
      'a.d = DATE',
      6,
      'expected a value (quoted string, number, DATE or TIME) after =, found "DATE"',
    ],
  ])('%j', (text, offset, detail) => {
    let caught: unknown;
    try {
      parseQuery(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QuerySyntaxError);
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as QuerySyntaxError).message).toBe(
      `query parse error at offset ${offset}: ${detail}`,
    );
    expect((caught as QuerySyntaxError).offset).toBe(offset);
  });

  it('names the error class for logs and error mapping', () => {
    expect(() => parseQuery('x')).toThrow(expect.objectContaining({ name: 'QuerySyntaxError' }));
  });
});
