/**
 * How a streaming command waits: until Ctrl-C (SIGINT, a clean end), until it has printed the
 * `--count` items it was asked for or the chain has passed `--until-block` (clean ends), or
 * until its connection closes under it (the daemon stopped: a failure).
 */
import { Flags } from '@oclif/core';
import { parseBlockNumber } from './log-filter-flags.js';

/** Why the wait ended. */
export type StreamEnd =
  { kind: 'interrupted' } | { kind: 'complete' } | { kind: 'closed'; code: number; reason: string };

/** `--count N`: the streaming commands' way for a script to wait for N items and go on. */
export const countFlag = Flags.integer({
  description: 'Exit (status 0) after printing this many items.',
  min: 1,
});

/** `--until-block N`: the streaming commands' way to print a range of blocks and go on. */
export const untilBlockFlag = Flags.custom<bigint>({
  description:
    'Exit (status 0) once the chain is past this block (decimal or 0x-hex): items of later blocks are not printed.',
  parse: async (input) => parseBlockNumber(input),
});

/**
 * Counts printed items against `--count` and their blocks against `--until-block`;
 * `complete` resolves once the last item is printed or the chain is past the last block, and
 * `take()` says whether an item may still be printed.
 */
export class ItemBudget {
  private printed = 0;
  private finished = false;
  private finish: () => void = () => {};
  readonly complete = new Promise<StreamEnd>((resolve) => {
    this.finish = () => {
      this.finished = true;
      resolve({ kind: 'complete' });
    };
  });

  constructor(
    private readonly limit: number | undefined,
    readonly untilBlock?: bigint,
  ) {}

  /** Whether the item (of block `height`, when known) may be printed; counts it if so. */
  take(height?: bigint): boolean {
    if (this.finished) return false;
    if (height !== undefined) this.headAt(height);
    if (this.finished || (this.limit !== undefined && this.printed >= this.limit)) return false;
    this.printed += 1;
    if (this.printed === this.limit) this.finish();
    return true;
  }

  /** The chain has block `height`: past `--until-block`, every item up to it has arrived. */
  headAt(height: bigint): void {
    if (this.untilBlock !== undefined && height > this.untilBlock) this.finish();
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
