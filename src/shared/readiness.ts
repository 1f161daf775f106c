/**
 * The body of `GET /ready` (on the JSON-RPC HTTP listener and the metrics listener): shared by
 * the daemon that answers it and the client that reads it (`daemon status`).
 */

/** The checks, in the order they are reported. */
export const READINESS_CHECKS = ['chain', 'block_production', 'head_age', 'listeners'] as const;

export type CheckName = (typeof READINESS_CHECKS)[number];

export interface CheckResult {
  ok: boolean;
  /** What was found, e.g. `no block for 1.2 s, limit 5 s`. */
  detail: string;
}

export interface Readiness {
  ready: boolean;
  /** Names of the checks that failed, in the order of {@link READINESS_CHECKS}. */
  failed: CheckName[];
  checks: Record<CheckName, CheckResult>;
}

export function isReadiness(value: unknown): value is Readiness {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const checks = record.checks as Record<string, unknown> | undefined;
  return (
    typeof record.ready === 'boolean' &&
    Array.isArray(record.failed) &&
    typeof checks === 'object' &&
    checks !== null &&
    READINESS_CHECKS.every((name) => typeof (checks[name] as CheckResult)?.ok === 'boolean')
  );
}
