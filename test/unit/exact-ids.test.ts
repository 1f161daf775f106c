/** The scan for request ids' own digits (`rpc/exact-ids.ts`). */
import { describe, expect, it } from '@jest/globals';
import { numericIdTexts } from '../../src/daemon/rpc/exact-ids.js';

describe('numericIdTexts', () => {
  it('finds the id of a single request, wherever it is among the members', () => {
    expect(numericIdTexts('{"jsonrpc":"2.0","id":1.50,"method":"m"}')).toEqual(
      new Map([[0, '1.50']]),
    );
    expect(numericIdTexts(' { "method" : "m", "id" : -12e3 } ')).toEqual(new Map([[0, '-12e3']]));
  });

  it('takes the id of each request of a batch by its place, not ids nested in params', () => {
    const text =
      '[{"params":[{"id":5},"id"],"id":18446744073709551615},' +
      '{"id":"7"},' +
      '[1,{"id":2}],' +
      '{"a":"\\"id\\"","id":3}]';
    expect(numericIdTexts(text)).toEqual(
      new Map([
        [0, '18446744073709551615'],
        [3, '3'],
      ]),
    );
  });

  it('keeps the last of two ids, as JSON.parse does', () => {
    expect(numericIdTexts('{"id":1,"id":2}')).toEqual(new Map([[0, '2']]));
  });
});
