import { describe, expect, it } from '@jest/globals';
import { parseQuery } from '../../src/daemon/events/query/index.js';
import type { EventSet } from '../../src/daemon/events/query/index.js';

const SENDER = '0x8A3bC1f0dE0aAbCdEf0123456789aBcDeF012345';
const RECIPIENT = '0xAbC0000000000000000000000000000000000dEf';

const txEvents: EventSet = {
  'tm.event': ['Tx'],
  'tx.hash': ['0xDEADBEEF'],
  'tx.height': ['42'],
  'ethereum_tx.sender': [SENDER],
  'ethereum_tx.recipient': [RECIPIENT],
  'ethereum_tx.amount': ['1000000000000000000000000'],
  'ethereum_tx.txIndex': ['0'],
  'message.action': ['/cosmos.bank.v1beta1.MsgSend', 'ethereum_tx'],
  'transfer.amount': ['100stake', '6.5atom'],
  'block.date': ['2013-05-03'],
  'block.time': ['2013-05-03T14:45:00.5+02:00'],
};

const addressKeys = new Set(['ethereum_tx.sender', 'ethereum_tx.recipient']);

function matches(text: string, events: EventSet = txEvents): boolean {
  return parseQuery(text, { caseInsensitiveKeys: addressKeys }).matches(events);
}

describe('Query.matches', () => {
  it.each([
    ["tm.event='Tx'", true],
    ["tm.event='NewBlock'", false],
    ["tm.event='tx'", false],
    [`tm.event='Tx' AND ethereum_tx.recipient='${RECIPIENT}'`, true],
    [`tm.event='Tx' AND ethereum_tx.recipient='${RECIPIENT.toLowerCase()}'`, true],
    [`tm.event='Tx' AND ethereum_tx.sender='${SENDER.toUpperCase().replace('0X', '0x')}'`, true],
    [`ethereum_tx.recipient='${SENDER}'`, false],
    ["ethereum_tx.sender CONTAINS '8a3BC1'", true],
    ["tx.hash='0xdeadbeef'", false],
    ["tx.hash='0xDEADBEEF'", true],
    ["tx.hash CONTAINS 'beef'", false],
    ["tx.hash CONTAINS 'BEEF'", true],
    ["tm.event='Tx' AND tm.event='NewBlock'", false],
  ])('%s -> %s', (text, expected) => {
    expect(matches(text)).toBe(expected);
  });

  it('holds a condition when ANY value of the key satisfies it', () => {
    expect(matches("message.action='ethereum_tx'")).toBe(true);
    expect(matches("message.action CONTAINS 'MsgSend'")).toBe(true);
    expect(matches("message.action='other'")).toBe(false);
    expect(matches('transfer.amount = 6.5')).toBe(true);
    expect(matches('transfer.amount > 99 AND transfer.amount < 7')).toBe(true);
    expect(matches('transfer.amount > 100')).toBe(false);
  });

  it('compares numbers as numbers, not as strings', () => {
    expect(matches('tx.height = 42')).toBe(true);
    expect(matches('tx.height = 42.0')).toBe(true);
    expect(matches("tx.height = '42.0'")).toBe(false);
    expect(matches('tx.height > 5')).toBe(true);
    expect(matches('tx.height < 100')).toBe(true);
    expect(matches('tx.height >= 42 AND tx.height <= 42')).toBe(true);
    expect(matches('tx.height > 42')).toBe(false);
    expect(matches('tx.height < -1')).toBe(false);
    expect(matches('tx.height > -1')).toBe(true);
    expect(matches('ethereum_tx.amount = 1000000000000000000000000')).toBe(true);
    expect(matches('ethereum_tx.amount > 999999999999999999999999')).toBe(true);
    expect(matches('ethereum_tx.amount < 1000000000000000000000000.000001')).toBe(true);
    expect(matches('ethereum_tx.amount = 1000000000000000000000001')).toBe(false);
  });

  it.each([
    ['tx.height', '42', '41', '43'],
    ['block.date', 'DATE 2013-05-03', 'DATE 2013-05-02', 'DATE 2013-05-04'],
    [
      'block.time',
      'TIME 2013-05-03T12:45:00.5Z',
      'TIME 2013-05-03T12:45:00.4999Z',
      'TIME 2013-05-03T12:45:00.5001Z',
    ],
  ])('orders %s strictly and inclusively at the boundary', (key, equal, below, above) => {
    const outcomes = (operand: string) =>
      ['<', '<=', '=', '>=', '>'].map((operator) => matches(`${key} ${operator} ${operand}`));
    expect(outcomes(equal)).toEqual([false, true, true, true, false]);
    expect(outcomes(below)).toEqual([false, false, false, true, true]);
    expect(outcomes(above)).toEqual([true, true, false, false, false]);
  });

  it('reads the number at the start of a value, as CometBFT does', () => {
    expect(matches('transfer.amount = 100')).toBe(true);
    expect(matches("transfer.amount = '100'")).toBe(false);
    const events: EventSet = { 'a.v': ['-3.5kg'], 'a.w': ['stake100'], 'a.x': ['0x10'] };
    expect(matches('a.v = -3.5', events)).toBe(true);
    expect(matches('a.v < -3', events)).toBe(true);
    expect(matches('a.w = 100', events)).toBe(false);
    expect(matches('a.w < 1000000', events)).toBe(false);
    expect(matches('a.x = 0', events)).toBe(true);
  });

  it('compares dates and times as instants', () => {
    expect(matches('block.date = DATE 2013-05-03')).toBe(true);
    expect(matches('block.date > DATE 2013-05-02 AND block.date < DATE 2013-05-04')).toBe(true);
    expect(matches('block.date >= DATE 2013-05-04')).toBe(false);
    expect(matches("block.date = '2013-05-03'")).toBe(true);
    expect(matches('block.time = TIME 2013-05-03T12:45:00.5Z')).toBe(true);
    expect(matches('block.time > TIME 2013-05-03T12:45:00Z')).toBe(true);
    expect(matches('block.time < TIME 2013-05-03T12:45:01Z')).toBe(true);
    expect(matches('block.time <= TIME 2013-05-03T14:45:00+02:00')).toBe(false);
    expect(matches('block.time >= TIME 2013-05-03T05:45:00.5-07:00')).toBe(true);
  });

  it('compares a DATE only with dates and a TIME only with times', () => {
    expect(matches('block.time > DATE 2000-01-01')).toBe(false);
    expect(matches('block.date > TIME 2000-01-01T00:00:00Z')).toBe(false);
    expect(matches('tx.height > DATE 2000-01-01')).toBe(false);
  });

  it('treats EXISTS as presence of the key with a value', () => {
    expect(matches('ethereum_tx.recipient EXISTS')).toBe(true);
    expect(matches('ethereum_tx.ethereumTxFailed EXISTS')).toBe(false);
    expect(matches("tm.event='Tx' AND ethereum_tx.ethereumTxFailed EXISTS")).toBe(false);
    expect(matches('a.b EXISTS', { 'a.b': [] })).toBe(false);
    expect(matches('a.b EXISTS', { 'a.b': [''] })).toBe(true);
  });

  it('lets a key name an event type, tested against the empty string', () => {
    expect(matches('ethereum_tx EXISTS')).toBe(true);
    expect(matches('ethereum EXISTS')).toBe(false);
    expect(matches("ethereum_tx = ''")).toBe(true);
    expect(matches('ethereum_tx > 0')).toBe(false);
    expect(matches('a.b EXISTS', { 'a.b.c': ['1'] })).toBe(true);
    expect(matches('a EXISTS', { 'a.b.c': ['1'] })).toBe(false);
  });

  it('never matches keys without a dot, nor an empty event set', () => {
    expect(matches('height EXISTS', { height: ['1'] })).toBe(false);
    expect(matches('height = 1', { height: ['1'] })).toBe(false);
    expect(matches('a.b EXISTS', {})).toBe(false);
  });

  it('is case-sensitive unless the key is listed as case-insensitive', () => {
    const plain = parseQuery(`ethereum_tx.recipient='${RECIPIENT.toLowerCase()}'`);
    expect(plain.matches(txEvents)).toBe(false);
    const folded = parseQuery(`ethereum_tx.recipient='${RECIPIENT.toLowerCase()}'`, {
      caseInsensitiveKeys: new Set(['ethereum_tx.recipient']),
    });
    expect(folded.matches(txEvents)).toBe(true);
    expect(
      parseQuery("ethereum_tx.sender CONTAINS 'abcdef'", {
        caseInsensitiveKeys: new Set(['ethereum_tx.recipient']),
      }).matches(txEvents),
    ).toBe(false);
  });
});
