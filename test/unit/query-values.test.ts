import { describe, expect, it } from '@jest/globals';
import {
  compareDecimals,
  leadingDecimal,
  parseDecimal,
} from '../../src/daemon/events/query/decimal.js';
import { parseDateStamp, parseTimeStamp } from '../../src/daemon/events/query/timestamp.js';

describe('decimal', () => {
  it('parses exact numbers only', () => {
    expect(parseDecimal('-1.50')).toEqual({ units: -150n, scale: 2 });
    expect(parseDecimal('007')).toEqual({ units: 7n, scale: 0 });
    for (const text of ['', '-', '1.', '.5', '+1', '1e3', '0x10', '1 ']) {
      expect(parseDecimal(text)).toBeUndefined();
    }
  });

  it('reads the leading number of a value', () => {
    expect(leadingDecimal('100stake')).toEqual({ units: 100n, scale: 0 });
    expect(leadingDecimal('6.5atom')).toEqual({ units: 65n, scale: 1 });
    expect(leadingDecimal('5.')).toEqual({ units: 5n, scale: 0 });
    expect(leadingDecimal('atom5')).toBeUndefined();
    expect(leadingDecimal(' 5')).toBeUndefined();
  });

  it('compares exactly across scales and signs', () => {
    const cmp = (a: string, b: string) => compareDecimals(parseDecimal(a)!, parseDecimal(b)!);
    expect(cmp('1.10', '1.1')).toBe(0);
    expect(cmp('-0', '0')).toBe(0);
    expect(cmp('-1.5', '-1.25')).toBe(-1);
    expect(cmp('9007199254740993', '9007199254740992')).toBe(1);
    expect(cmp('0.1', '0.09999999999999999999')).toBe(1);
  });
});

describe('timestamp', () => {
  it('reads dates as midnight UTC', () => {
    expect(parseDateStamp('1970-01-02')).toBe(86_400_000_000_000n);
    expect(parseDateStamp('2024-02-29')).toBe(BigInt(Date.UTC(2024, 1, 29)) * 1_000_000n);
    expect(parseDateStamp('0050-01-01')).toBe(
      BigInt(new Date('0050-01-01T00:00:00Z').getTime()) * 1_000_000n,
    );
  });

  it('rejects impossible or malformed dates', () => {
    for (const text of [
      '2023-02-29',
      '2023-00-10',
      '2023-04-31',
      '2023-1-01',
      '2023-01-01T00:00:00Z',
      '',
    ]) {
      expect(parseDateStamp(text)).toBeUndefined();
    }
  });

  it('reads RFC 3339 times with offsets and fractions', () => {
    expect(parseTimeStamp('1970-01-01T00:00:00Z')).toBe(0n);
    expect(parseTimeStamp('1970-01-01T01:00:00+01:00')).toBe(0n);
    expect(parseTimeStamp('1969-12-31T23:30:00-00:30')).toBe(0n);
    expect(parseTimeStamp('1970-01-01T00:00:00.000000001Z')).toBe(1n);
    expect(parseTimeStamp('1970-01-01T00:00:00.1234567899Z')).toBe(123_456_789n);
    expect(parseTimeStamp('2013-05-03T14:45:00Z')).toBe(
      BigInt(Date.UTC(2013, 4, 3, 14, 45)) * 1_000_000n,
    );
  });

  it('rejects malformed times', () => {
    for (const text of [
      '2013-05-03',
      '2013-05-03T14:45Z',
      '2013-05-03T14:45:00',
      '2013-05-03 14:45:00Z',
      '2013-05-03t14:45:00z',
      '2013-05-03T24:00:00Z',
      '2013-05-03T14:60:00Z',
      '2013-05-03T14:45:60Z',
      '2013-05-03T14:45:00+24:00',
      '2013-05-03T14:45:00+0100',
      '2013-02-30T00:00:00Z',
    ]) {
      expect(parseTimeStamp(text)).toBeUndefined();
    }
  });
});
