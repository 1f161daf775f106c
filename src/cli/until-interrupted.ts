/**
 * How a streaming command waits: until Ctrl-C (SIGINT, a clean end), until it has printed the
 * `--count` items it was asked for (a clean end), or until its connection closes under it (the
 * daemon stopped: a failure).
 */
import { Flags } from '@oclif/core';

/** Why the wait ended. */
export type StreamEnd =
  { kind: 'interrupted' } | { kind: 'complete' } | { kind: 'closed'; code: number; reason: string };

/** `--count N`: the streaming commands' way for a script to wait for N items and go on. */
export const countFlag = Flags.integer({
  description: 'Exit (status 0) after printing this many items.',
  min: 1,
});

/**
 * Counts printed items against `--count`; `complete` resolves once the last one is printed,
 * and `take()` says whether an item may still be printed.
 */
export class ItemBudget {
  private printed = 0;
  private finish: () => void = () => {};
  readonly complete = new Promise<StreamEnd>((resolve) => {
    this.finish = () => resolve({ kind: 'complete' });
  });

  constructor(private readonly limit: number | undefined) {}

  take(): boolean {
    if (this.limit !== undefined && this.printed >= this.limit) return false;
    this.printed += 1;
    if (this.printed === this.limit) this.finish();
    return true;
  }
}

/** Anything that reports its own close, such as the WebSocket clients of src/client. */
export interface Closable {
  onClose(listener: (code: number, reason: string) => void): () => void;
}

/**
 * Resolves at the first SIGINT, when `budget` is spent, or when `connection` closes; removes
 * its listeners then.
 */
export function untilInterrupted(connection: Closable, budget: ItemBudget): Promise<StreamEnd> {
  return new Promise((resolve) => {
    const end = (reason: StreamEnd): void => {
      process.off('SIGINT', onSigint);
      stopWatchingClose();
      resolve(reason);
    };
    const onSigint = (): void => end({ kind: 'interrupted' });
    const stopWatchingClose = connection.onClose((code, reason) =>
      end({ kind: 'closed', code, reason }),
    );
    process.once('SIGINT', onSigint);
    void budget.complete.then(end);
  });
}

/** The message of a stream whose connection closed unasked. */
export function closedMessage(end: Extract<StreamEnd, { kind: 'closed' }>): string {
  return `the daemon closed the connection (${end.code}${end.reason ? `: ${end.reason}` : ''})`;
}
