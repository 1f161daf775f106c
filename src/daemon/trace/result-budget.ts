/**
 * How much a trace job's result may hold, counted in the trace thread as its tracers produce it.
 * A struct log of a long run is hundreds of thousands of steps (280 000 steps are 40 MB of
 * JSON, and more than ten times that as objects), all of which is held until the job ends and
 * then goes out as one answer. Past the budget the job fails with `-32005`, saying how to ask
 * for less, as geth's users do with `limit`.
 */
import { LimitExceededError } from '../../shared/errors.js';

/** The most JSON a trace job's result may hold: as much as the largest batch answer (25 MB). */
export const TRACE_RESULT_MAX_BYTES = 25_000_000;

export class ResultBudget {
  private spent = 0;

  constructor(readonly maxBytes = TRACE_RESULT_MAX_BYTES) {}

  /** Counts `bytes` more of the result's JSON. */
  spend(bytes: number): void {
    this.spent += bytes;
  }

  /** Throws when the result outgrew the budget. */
  check(): void {
    if (this.spent <= this.maxBytes) return;
    throw new LimitExceededError(
      `trace result exceeds ${this.maxBytes} bytes, the most a trace answers: ask for less ` +
        '(the struct logger with a limit, disableStack, disableStorage or without enableMemory; ' +
        'a single transaction; or a tracer such as callTracer)',
    );
  }
}
