/**
 * Warnings that a client can cause at will (refused tokens, limits hit) must not let it flood
 * the log: the first of each kind is logged at once, later ones at most once per interval,
 * each line saying how many were left out since the last.
 */

export type WarnFunction = (message: string, details?: Record<string, unknown>) => void;

/** Kinds remembered at most; past it the memory starts over (a kind is method-sized, bounded). */
const MAX_KINDS = 1024;

export class WarningThrottle {
  private readonly kinds = new Map<string, { loggedAt: number; skipped: number }>();

  constructor(
    private readonly warn: WarnFunction,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Logs `message` unless a warning of `kind` was logged less than the interval ago. */
  report(kind: string, message: string, details: Record<string, unknown>): void {
    const at = this.now();
    const seen = this.kinds.get(kind);
    if (seen !== undefined && at - seen.loggedAt < this.intervalMs) {
      seen.skipped++;
      return;
    }
    if (seen === undefined && this.kinds.size >= MAX_KINDS) this.kinds.clear();
    this.kinds.set(kind, { loggedAt: at, skipped: 0 });
    this.warn(message, seen?.skipped ? { ...details, notLoggedSinceLast: seen.skipped } : details);
  }
}
