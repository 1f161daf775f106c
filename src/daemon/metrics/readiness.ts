/**
 * Liveness and readiness of the node, as `/health` and `/ready` answer them on the JSON-RPC
 * HTTP listener and on the metrics listener.
 *
 * Ready means the node can serve what a load balancer sends it: the chain store is open, block
 * production runs (not halted by a failed commit, not switched off by the dev methods), the head is
 * younger than `--health.max-head-age-blocks` block times, and every listener is up. A node with
 * one validator is never syncing (`eth_syncing` is always false: it is the only source of
 * blocks), so readiness does not wait for a sync the way a geth probe would.
 */
import {
  READINESS_CHECKS,
  type CheckName,
  type CheckResult,
  type Readiness,
} from '../../shared/readiness.js';
import type { ProductionState } from '../chain/production-health.js';

export interface ReadinessSources {
  chain: { isOpen(): boolean; head(): { number: bigint; timestampSeconds: bigint } };
  production(): ProductionState;
  blockTimeMs: number;
  emptyBlocks: boolean;
  /** Oldest head accepted, in block times (`--health.max-head-age-blocks`). */
  maxHeadAgeBlocks: number;
  now?: () => number;
}

/** Blocks carry whole seconds, so a head can look up to a second older than it is. */
const TIMESTAMP_SLACK_MS = 1000;

export class ReadinessProbe {
  private readonly listeners: Array<{ name: string; listening: () => boolean }> = [];
  private readonly startedAt: number;
  /** The head number this probe last saw, and when it first saw it. */
  private seen = { number: -1n, at: 0 };

  constructor(private readonly sources: ReadinessSources) {
    this.startedAt = this.now();
  }

  private now(): number {
    return (this.sources.now ?? Date.now)();
  }

  /** Adds a listener that must be up for the node to be ready. */
  addListener(name: string, listening: () => boolean): void {
    this.listeners.push({ name, listening });
  }

  check(): Readiness {
    const checks: Record<CheckName, CheckResult> = {
      chain: this.chainCheck(),
      block_production: this.productionCheck(),
      head_age: this.headAgeCheck(),
      listeners: this.listenerCheck(),
    };
    const failed = READINESS_CHECKS.filter((name) => !checks[name].ok);
    return { ready: failed.length === 0, failed, checks };
  }

  private chainCheck(): CheckResult {
    if (!this.sources.chain.isOpen()) return { ok: false, detail: 'chain store closed' };
    return { ok: true, detail: `open at block ${this.sources.chain.head().number}` };
  }

  private productionCheck(): CheckResult {
    const state = this.sources.production();
    if (state.producing) return { ok: true, detail: 'producing' };
    return { ok: false, detail: `stopped since ${state.since}: ${state.reason}` };
  }

  private headAgeCheck(): CheckResult {
    const { blockTimeMs, emptyBlocks, maxHeadAgeBlocks } = this.sources;
    if (blockTimeMs === 0 || !emptyBlocks) {
      return { ok: true, detail: 'not checked: blocks are made only for transactions' };
    }
    // A head from before the start (genesis, or the last block before a restart) is counted
    // from the start: what matters is how long this process has gone without a block. A
    // timestamp ahead of the clock (blocks faster than a second each take their parent's
    // second plus one) is counted from when this probe first saw that head instead.
    const now = this.now();
    const head = this.sources.chain.head();
    if (head.number !== this.seen.number) this.seen = { number: head.number, at: now };
    const headAt = Math.min(Number(head.timestampSeconds) * 1000, this.seen.at);
    const ageMs = Math.max(0, now - Math.max(headAt, this.startedAt));
    const limitMs = Math.max(maxHeadAgeBlocks * blockTimeMs, blockTimeMs + TIMESTAMP_SLACK_MS);
    const detail = `no block for ${(ageMs / 1000).toFixed(1)} s, limit ${limitMs / 1000} s`;
    return { ok: ageMs <= limitMs, detail };
  }

  private listenerCheck(): CheckResult {
    const down = this.listeners.filter((listener) => !listener.listening()).map((l) => l.name);
    if (down.length > 0) return { ok: false, detail: `not listening: ${down.join(', ')}` };
    return { ok: true, detail: `${this.listeners.map((l) => l.name).join(', ')} listening` };
  }
}
