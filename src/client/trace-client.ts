/** The tracing methods of the daemon's debug namespace (they need the auth token). */
import type { HttpRpcClient } from './http-rpc-client.js';
import { TRACERS, type TraceResults, type TracerChoice } from '../shared/trace-results.js';

export class TraceClient {
  constructor(private readonly rpc: HttpRpcClient) {}

  /** `debug_traceTransaction` with the tracer `tracer` names, in geth's JSON. */
  traceTransaction<T extends TracerChoice>(hash: string, tracer: T): Promise<TraceResults[T]> {
    return this.rpc.call<TraceResults[T]>('debug_traceTransaction', [hash, TRACERS[tracer]]);
  }
}
