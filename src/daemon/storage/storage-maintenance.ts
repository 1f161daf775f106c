/**
 * The storage layer's background work: the scrubber, which checks the replicas of one chunk at
 * a time at `--storage.scrub-rate` chunks per second and walks the whole index round and round,
 * and the collector, which every `--storage.collect-interval` renews or removes expired files
 * and removes replica files left on a volume that was away or failing when they were removed.
 * Each step is awaited before the next is scheduled, so they never pile up; `stop` waits for the
 * step in flight.
 */
import type { Logger } from '../logger.js';
import type { StorageLayer } from './storage-layer.js';

export interface MaintenanceOptions {
  /** Chunks checked per second; 0 turns the scrubber off. */
  scrubRate: number;
  /** Milliseconds between expiry collections. */
  collectIntervalMs: number;
  logger: Logger;
}

class RepeatingStep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly step: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.step()
        .catch(this.onError)
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}

export class StorageMaintenance {
  private readonly steps: RepeatingStep[] = [];
  private cursor: string | undefined;
  private pass = { chunks: 0, bad: 0 };
  private lastBad = 0;

  constructor(
    private readonly storage: StorageLayer,
    private readonly options: MaintenanceOptions,
  ) {
    const { logger } = options;
    if (options.scrubRate > 0) {
      this.steps.push(
        new RepeatingStep(
          1000 / options.scrubRate,
          () => this.scrubNext(),
          (error) => logger.error('storage scrub step failed', { error: String(error) }),
        ),
      );
    }
    this.steps.push(
      new RepeatingStep(
        options.collectIntervalMs,
        async () => {
          const removed = await storage.collectExpired();
          if (removed > 0) logger.info('expired files collected', { removed });
          await storage.collectStrays();
        },
        (error) => logger.error('storage expiry collection failed', { error: String(error) }),
      ),
    );
  }

  start(): void {
    for (const step of this.steps) step.start();
  }

  stop(): Promise<void> {
    return Promise.all(this.steps.map((step) => step.stop())).then(() => undefined);
  }

  private async scrubNext(): Promise<void> {
    const [id] = this.storage.chunkIdsAfter(this.cursor, 1);
    if (id === undefined) {
      // Quiet unless the finding changed: with few chunks a pass takes moments, and a volume
      // that is away stays away for many passes.
      const changed = this.pass.bad !== this.lastBad;
      if (changed) this.options.logger.warn('storage scrub pass complete', { ...this.pass });
      else if (this.pass.chunks > 0)
        this.options.logger.debug('storage scrub pass complete', { ...this.pass });
      this.lastBad = this.pass.bad;
      this.cursor = undefined;
      this.pass = { chunks: 0, bad: 0 };
      return;
    }
    this.cursor = id;
    this.pass.chunks += 1;
    this.pass.bad += await this.storage.scrub(id);
  }
}
