/**
 * geth's trace config object (`{tracer, tracerConfig, timeout, disableStack, ...}`) checked and
 * turned into the options a trace thread runs with. Everything a caller can get wrong is refused
 * here, on the main thread, with an error that names the field.
 */
import { InvalidInputError } from '../../shared/errors.js';

/** The tracers this node has, by geth's names; `structLogger` is the default opcode logger. */
export const TRACER_NAMES = [
  'callTracer',
  'flatCallTracer',
  'prestateTracer',
  '4byteTracer',
  'noopTracer',
] as const;

export type TracerName = (typeof TRACER_NAMES)[number] | 'structLogger';

export interface StructLoggerOptions {
  disableStack: boolean;
  disableStorage: boolean;
  enableMemory: boolean;
  enableReturnData: boolean;
  /** Most steps logged; 0 for no limit. */
  limit: number;
}

export interface CallTracerOptions {
  onlyTopCall: boolean;
  withLog: boolean;
}

export interface FlatCallTracerOptions {
  convertParityErrors: boolean;
  includePrecompiles: boolean;
}

export interface PrestateTracerOptions {
  diffMode: boolean;
}

/** What a trace thread needs to know about the tracer to run (plain data: it crosses threads). */
export type TracerOptions =
  | { name: 'structLogger'; config: StructLoggerOptions }
  | { name: 'callTracer'; config: CallTracerOptions }
  | { name: 'flatCallTracer'; config: FlatCallTracerOptions }
  | { name: 'prestateTracer'; config: PrestateTracerOptions }
  | { name: '4byteTracer' }
  | { name: 'noopTracer' };

export interface TraceOptions {
  tracer: TracerOptions;
  /** Longest one transaction's trace may run, in ms. */
  timeoutMs: number;
}

/** geth's default trace timeout. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000;

/** geth's trace config object, as JSON-RPC hands it over. */
export interface TraceConfig {
  tracer?: string;
  tracerConfig?: Record<string, unknown>;
  timeout?: string;
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  limit?: number;
  reexec?: number;
  [key: string]: unknown;
}

/** Nanoseconds per unit; Go takes both micro signs, U+00B5 and U+03BC, for microseconds. */
const DURATION_UNITS_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n,
  '\u03bcs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's longest duration, 2^63 - 1 ns (about 2562047h); `time.ParseDuration` refuses longer. */
const MAX_GO_DURATION_NS = 2n ** 63n - 1n;

/**
 * A Go duration string (`"300ms"`, `"1m30s"`, `"2h45m"`), as geth's `timeout` takes it, in ms.
 * Throws on anything `time.ParseDuration` would refuse. Counted in whole nanoseconds, as Go
 * does, so the longest duration is refused where Go refuses it.
 */
export function parseGoDuration(text: string): number {
  const invalid = () =>
    new InvalidInputError(
      `invalid timeout "${text}": want a Go duration such as "500ms", "10s" or "1m30s"`,
    );
  if (text === '0') return 0;
  const match = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/.exec(text);
  if (match === null) throw invalid();
  if (match[1] === '-')
    throw new InvalidInputError(`invalid timeout "${text}": must not be negative`);
  let totalNs = 0n;
  for (const part of text
    .slice(match[1].length)
    .matchAll(/(\d*)(?:\.(\d*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g)) {
    const unit = DURATION_UNITS_NS[part[3]];
    const fraction = part[2] ?? '';
    totalNs += BigInt(part[1] || '0') * unit;
    // Go drops what falls below a nanosecond.
    if (fraction !== '') totalNs += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    if (totalNs > MAX_GO_DURATION_NS) {
      throw new InvalidInputError(
        `invalid timeout "${text}": longer than Go's longest duration, 2562047h47m16.854775807s`,
      );
    }
  }
  return Number(totalNs) / 1e6;
}

/** Reads the tracer-specific object, refusing fields the tracer does not have. */
function tracerConfigOf<T extends object>(
  tracer: string,
  given: Record<string, unknown> | undefined,
  defaults: T,
): T {
  const config = { ...defaults } as Record<string, unknown>;
  for (const [key, value] of Object.entries(given ?? {})) {
    if (!(key in defaults)) {
      throw new InvalidInputError(`invalid tracerConfig: ${tracer} has no option ${key}`);
    }
    if (typeof value !== typeof config[key]) {
      throw new InvalidInputError(
        `invalid tracerConfig: ${tracer} option ${key} must be a ${typeof config[key]}`,
      );
    }
    config[key] = value;
  }
  return config as T;
}

function unknownTracer(name: string): InvalidInputError {
  const looksLikeJs = /[{}()=;]/.test(name);
  return new InvalidInputError(
    looksLikeJs
      ? 'JavaScript tracers are not supported by this node: use one of the built-in tracers ' +
          `(${TRACER_NAMES.join(', ')}, or no tracer for the struct logger)`
      : `unknown tracer "${name}": this node has ${TRACER_NAMES.join(', ')} ` +
          '(no tracer: the struct logger); JavaScript tracers are not supported',
  );
}

function tracerOptions(config: TraceConfig): TracerOptions {
  const name = config.tracer ?? '';
  const given = config.tracerConfig;
  switch (name) {
    case '':
      if (given !== undefined && Object.keys(given).length > 0) {
        throw new InvalidInputError(
          'invalid tracerConfig: the struct logger takes no tracerConfig',
        );
      }
      return {
        name: 'structLogger',
        config: {
          disableStack: config.disableStack ?? false,
          disableStorage: config.disableStorage ?? false,
          enableMemory: config.enableMemory ?? false,
          enableReturnData: config.enableReturnData ?? false,
          limit: config.limit ?? 0,
        },
      };
    case 'callTracer':
      return { name, config: tracerConfigOf(name, given, { onlyTopCall: false, withLog: false }) };
    case 'flatCallTracer':
      return {
        name,
        config: tracerConfigOf(name, given, {
          convertParityErrors: false,
          includePrecompiles: false,
        }),
      };
    case 'prestateTracer':
      return { name, config: tracerConfigOf(name, given, { diffMode: false }) };
    case '4byteTracer':
    case 'noopTracer':
      tracerConfigOf(name, given, {});
      return { name };
    default:
      throw unknownTracer(name);
  }
}

/** The options of a trace from geth's trace config (absent: the struct logger, 5 s). */
export function traceOptions(config: TraceConfig | undefined): TraceOptions {
  const given = config ?? {};
  return {
    tracer: tracerOptions(given),
    timeoutMs:
      given.timeout === undefined ? DEFAULT_TRACE_TIMEOUT_MS : parseGoDuration(given.timeout),
  };
}
