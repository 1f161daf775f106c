/**
 * How a streaming command waits: until Ctrl-C (SIGINT, a clean end) or until its connection
 * closes under it (the daemon stopped: a failure).
 */

/** Why the wait ended. */
export type StreamEnd = { kind: 'interrupted' } | { kind: 'closed'; code: number; reason: string };

/** Anything that reports its own close, such as the WebSocket clients of src/client. */
export interface Closable {
  onClose(listener: (code: number, reason: string) => void): () => void;
}

/** Resolves at the first SIGINT or when `connection` closes; removes both listeners then. */
export function untilInterrupted(connection: Closable): Promise<StreamEnd> {
  return new Promise((resolve) => {
    const onSigint = (): void => {
      stopWatchingClose();
      resolve({ kind: 'interrupted' });
    };
    const stopWatchingClose = connection.onClose((code, reason) => {
      process.off('SIGINT', onSigint);
      resolve({ kind: 'closed', code, reason });
    });
    process.once('SIGINT', onSigint);
  });
}

/** The message of a stream whose connection closed unasked. */
export function closedMessage(end: Extract<StreamEnd, { kind: 'closed' }>): string {
  return `the daemon closed the connection (${end.code}${end.reason ? `: ${end.reason}` : ''})`;
}
