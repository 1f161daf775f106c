/**
 * The results of `debug_traceTransaction` per tracer, in geth's JSON shapes: what the daemon
 * answers and what the client and the CLI read.
 */

/** A `callTracer` frame. */
export interface CallTraceFrame {
  type: string;
  from: string;
  to?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  value?: string;
  calls?: CallTraceFrame[];
  logs?: Array<{ address: string; topics: string[]; data: string; position: string }>;
}

/** An account of the `prestateTracer` (default mode). */
export interface PrestateAccount {
  balance?: string;
  nonce?: number;
  code?: string;
  codeHash?: string;
  storage?: Record<string, string>;
}

/** One step of the struct logger. */
export interface StructLogEntry {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
}

/** The struct logger's result. */
export interface StructLogResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLogEntry[];
}

/** The tracers `tx trace` offers, by their short names: the trace config each one sends. */
export const TRACERS = {
  call: { tracer: 'callTracer', tracerConfig: { withLog: true } },
  prestate: { tracer: 'prestateTracer' },
  struct: {},
  '4byte': { tracer: '4byteTracer' },
} as const;

export type TracerChoice = keyof typeof TRACERS;

export interface TraceResults {
  call: CallTraceFrame;
  prestate: Record<string, PrestateAccount>;
  struct: StructLogResult;
  '4byte': Record<string, number>;
}
