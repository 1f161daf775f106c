/**
 * How much a trace job's result may hold, counted in the trace thread as its tracers produce it.
 * A struct log of a long run is hundreds of thousands of steps (280 000 steps are 40 MB of
 * JSON, and more than ten times that as objects), all of which is held until the job ends and
 * then goes out as one answer. Past the budget the job fails with `-32005`, saying how to ask
 * for less, as geth's users do with `limit`.
 */
import { LimitExceededError } from '../../shared/errors.js';

export class ResultBudget {
  private spent = 0;

  /** `maxBytes`: `--json-rpc.trace-result-max-size`. */
  constructor(readonly maxBytes: number) {}

  /** Counts `bytes` more of the result's JSON. */
  spend(bytes: number): void {
    this.spent += bytes;
  }

  /** Throws when the result outgrew the budget. */
  check(): void {
    if (this.spent <= this.maxBytes) return;
    throw new LimitExceededError(
      `trace result exceeds ${this.maxBytes} bytes (--json-rpc.trace-result-max-size): ask for less ` +
        '(the struct logger with a limit, disableStack, disableStorage or without enableMemory; ' +
        'a single transaction; or a tracer such as callTracer)',
    );
  }
}
