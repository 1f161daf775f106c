/** The tracer a trace's options name, for one transaction. */
import { CallTracer } from './call-tracer.js';
import { FlatCallTracer } from './flat-call-tracer.js';
import { FourByteTracer, NoopTracer } from './four-byte-tracer.js';
import { PrestateTracer } from './prestate-tracer.js';
import { StructLogger } from './struct-logger.js';
import type { TracerOptions } from './trace-options.js';
import type { TracedTx, TxTracer } from './tracer.js';

export function createTracer(options: TracerOptions, tx: TracedTx): TxTracer {
  switch (options.name) {
    case 'structLogger':
      return new StructLogger(options.config);
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
