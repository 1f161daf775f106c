/** The tracer a trace's options name, for one transaction. */
import { CallTracer } from './call-tracer.js';
import { FlatCallTracer } from './flat-call-tracer.js';
import { FourByteTracer, NoopTracer } from './four-byte-tracer.js';
import { PrestateTracer } from './prestate-tracer.js';
import { StructLogger } from './struct-logger.js';
import type { ResultBudget } from './result-budget.js';
import type { TracerOptions } from './trace-options.js';
import type { TracedTx, TxTracer } from './tracer.js';

/** `budget` is the job's, shared by the tracers of its transactions. */
export function createTracer(options: TracerOptions, tx: TracedTx, budget: ResultBudget): TxTracer {
  switch (options.name) {
    case 'structLogger':
      return new StructLogger(options.config, budget);
    case 'callTracer':
      return new CallTracer(tx, options.config);
    case 'flatCallTracer':
      return new FlatCallTracer(tx, options.config);
    case 'prestateTracer':
      return new PrestateTracer(tx, options.config);
    case '4byteTracer':
      return new FourByteTracer(tx);
    case 'noopTracer':
      return new NoopTracer();
  }
}
