/** The trace config as geth takes it: tracer names, tracer options, Go durations, revert data. */
import { describe, expect, it } from '@jest/globals';
import { AbiCoder, concat, id } from 'ethers';
import { hexToBytes } from '@ethereumjs/util';
import { InvalidInputError } from '../../src/shared/errors.js';
import { gethError, revertReason } from '../../src/daemon/chain/evm-errors.js';
import { parseGoDuration, traceOptions } from '../../src/daemon/trace/trace-options.js';

const coder = AbiCoder.defaultAbiCoder();
const revertData = (signature: string, type: string, value: unknown) =>
  hexToBytes(concat([id(signature).slice(0, 10), coder.encode([type], [value])]) as `0x${string}`);

describe('trace options', () => {
  it('reads Go durations as geth does', () => {
    expect(parseGoDuration('5s')).toBe(5_000);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('1.5h')).toBe(5_400_000);
    expect(parseGoDuration('300ms')).toBe(300);
    expect(parseGoDuration('2500us')).toBe(2.5);
    // Go takes both micro signs: U+00B5 and U+03BC.
    expect(parseGoDuration('2500\u00b5s')).toBe(2.5);
    expect(parseGoDuration('2500\u03bcs')).toBe(2.5);
    expect(parseGoDuration('0')).toBe(0);
    for (const bad of ['', '5', 's', '5 s', '-1s', '1d', 'soon']) {
      expect(() => parseGoDuration(bad)).toThrow(InvalidInputError);
    }
  });

  it("takes durations up to Go's longest and refuses longer ones, as time.ParseDuration does", () => {
    expect(parseGoDuration('597h')).toBe(597 * 3_600_000);
    expect(parseGoDuration('9223372036854775807ns')).toBe(9223372036854.775);
    expect(parseGoDuration('2562047h47m16.854775807s')).toBe(9223372036854.775);
    for (const tooLong of ['9223372036854775808ns', '2562048h', '2562047h47m16.854775808s']) {
      expect(() => parseGoDuration(tooLong)).toThrow(
        new InvalidInputError(
          `invalid timeout "${tooLong}": longer than Go's longest duration, 2562047h47m16.854775807s`,
        ),
      );
    }
  });

  it('defaults to the struct logger and 5 s, and keeps its options', () => {
    expect(traceOptions(undefined)).toEqual({
      tracer: {
        name: 'structLogger',
        config: {
          disableStack: false,
          disableStorage: false,
          enableMemory: false,
          enableReturnData: false,
          limit: 0,
        },
      },
      timeoutMs: 5_000,
    });
    expect(traceOptions({ enableMemory: true, limit: 3, timeout: '1s' })).toMatchObject({
      tracer: { config: { enableMemory: true, limit: 3 } },
      timeoutMs: 1_000,
    });
  });

  it('takes each tracer with its own options only', () => {
    expect(traceOptions({ tracer: 'callTracer', tracerConfig: { withLog: true } }).tracer).toEqual({
      name: 'callTracer',
      config: { onlyTopCall: false, withLog: true },
    });
    expect(
      traceOptions({ tracer: 'prestateTracer', tracerConfig: { diffMode: true } }).tracer,
    ).toEqual({ name: 'prestateTracer', config: { diffMode: true } });
    expect(traceOptions({ tracer: '4byteTracer' }).tracer).toEqual({ name: '4byteTracer' });
    expect(() => traceOptions({ tracer: 'callTracer', tracerConfig: { withLog: 'yes' } })).toThrow(
      'callTracer option withLog must be a boolean',
    );
    expect(() => traceOptions({ tracer: 'noopTracer', tracerConfig: { x: 1 } })).toThrow(
      'noopTracer has no option x',
    );
    expect(() => traceOptions({ tracerConfig: { diffMode: true } })).toThrow(
      'the struct logger takes no tracerConfig',
    );
  });

  it('refuses unknown tracers and JavaScript tracers with different messages', () => {
    expect(() => traceOptions({ tracer: 'muxTracer' })).toThrow('unknown tracer "muxTracer"');
    expect(() => traceOptions({ tracer: '{result: function() { return 1; }}' })).toThrow(
      'JavaScript tracers are not supported',
    );
  });
});

describe("geth's words for execution", () => {
  it('words EthereumJS errors as geth does', () => {
    expect(gethError('revert')).toBe('execution reverted');
    expect(gethError('invalid opcode', 0xfe)).toBe('invalid opcode: INVALID');
    expect(gethError('invalid opcode', 0x0c)).toBe('invalid opcode: opcode 0xc not defined');
    expect(gethError('invalid JUMP')).toBe('invalid jump destination');
    expect(gethError(`invalid JUMP at 0x${'ab'.repeat(32)}/0x${'cd'.repeat(20)}:2`)).toBe(
      'invalid jump destination',
    );
    expect(gethError('static state change')).toBe('write protection');
    expect(gethError('something new')).toBe('something new');
  });

  it('decodes Error(string) and Panic(uint256), and nothing else', () => {
    expect(revertReason(revertData('Error(string)', 'string', 'no way'))).toBe('no way');
    expect(revertReason(revertData('Panic(uint256)', 'uint256', 0x11))).toBe(
      'arithmetic underflow or overflow',
    );
    expect(revertReason(revertData('Panic(uint256)', 'uint256', 0x99))).toBe(
      'unknown panic code: 0x99',
    );
    expect(revertReason(revertData('Refused(uint256)', 'uint256', 1))).toBeUndefined();
    expect(revertReason(new Uint8Array())).toBeUndefined();
  });
});
