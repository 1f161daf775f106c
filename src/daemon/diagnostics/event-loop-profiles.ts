/**
 * What Go's block and mutex profiles become in a process with one event loop. Go's block profile
 * records where goroutines waited; here everything that waits, waits for the event loop, so the
 * block profile is the histogram of event-loop delay (`monitorEventLoopDelay`: how late timers
 * and I/O callbacks ran because other work held the loop). Go's mutex profile records contention
 * on locks; the one lock here is the event loop itself, so the mutex profile is its utilisation
 * (`performance.eventLoopUtilization`: the share of time the loop was busy running code).
 * Both profiles are JSON files: there are no stacks to attribute waits to, so pprof's format
 * would carry nothing more.
 */
import {
  monitorEventLoopDelay,
  performance,
  type EventLoopUtilization,
  type IntervalHistogram,
} from 'node:perf_hooks';

const PERCENTILES = [50, 75, 90, 99, 99.9, 100];

/** The block profile: event-loop delay, in nanoseconds. */
export interface DelayProfile {
  profile: 'event-loop-delay';
  from: string;
  to: string;
  /** How often the delay was sampled, in milliseconds. */
  resolutionMs: number;
  samples: number;
  minNs: number;
  maxNs: number;
  meanNs: number;
  stddevNs: number;
  /** Keyed `p50` ... `p100`. */
  percentilesNs: Record<string, number>;
}

/** The mutex profile: how busy the event loop was. */
export interface UtilizationProfile {
  profile: 'event-loop-utilization';
  from: string;
  to: string;
  activeMs: number;
  idleMs: number;
  /** activeMs / (activeMs + idleMs), 0 to 1. */
  utilization: number;
}

/** `monitorEventLoopDelay`'s resolution for Go's block profile rate (nanoseconds), at least 1 ms. */
export function delayResolutionMs(rateNs: number): number {
  return Math.max(1, Math.round(rateNs / 1e6));
}

/** A period of event-loop delay sampling. */
export class DelayWindow {
  private readonly histogram: IntervalHistogram;
  private readonly from = new Date();
  private to: Date | undefined;

  constructor(readonly resolutionMs: number) {
    this.histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.histogram.enable();
  }

  stop(): void {
    if (this.to === undefined) {
      this.histogram.disable();
      this.to = new Date();
    }
  }

  resume(): void {
    if (this.to !== undefined) {
      this.histogram.enable();
      this.to = undefined;
    }
  }

  profile(): DelayProfile {
    const { histogram } = this;
    const samples = histogram.count;
    return {
      profile: 'event-loop-delay',
      from: this.from.toISOString(),
      to: (this.to ?? new Date()).toISOString(),
      resolutionMs: this.resolutionMs,
      samples,
      minNs: samples === 0 ? 0 : histogram.min,
      maxNs: histogram.max,
      meanNs: samples === 0 ? 0 : Math.round(histogram.mean),
      stddevNs: samples === 0 ? 0 : Math.round(histogram.stddev),
      percentilesNs: Object.fromEntries(
        PERCENTILES.map((percentile) => [`p${percentile}`, histogram.percentile(percentile)]),
      ),
    };
  }
}

/** A period of event-loop utilisation measurement, which can be paused and resumed. */
export class UtilizationWindow {
  private readonly from = new Date();
  private to: Date | undefined;
  private measured = { active: 0, idle: 0 };
  private start: EventLoopUtilization | undefined = performance.eventLoopUtilization();

  stop(): void {
    if (this.start !== undefined) {
      this.measured = this.current();
      this.start = undefined;
      this.to = new Date();
    }
  }

  resume(): void {
    if (this.start === undefined) {
      this.start = performance.eventLoopUtilization();
      this.to = undefined;
    }
  }

  profile(): UtilizationProfile {
    const { active, idle } = this.current();
    return {
      profile: 'event-loop-utilization',
      from: this.from.toISOString(),
      to: (this.to ?? new Date()).toISOString(),
      activeMs: active,
      idleMs: idle,
      utilization: active + idle === 0 ? 0 : active / (active + idle),
    };
  }

  private current(): { active: number; idle: number } {
    if (this.start === undefined) return this.measured;
    const since = performance.eventLoopUtilization(this.start);
    return { active: this.measured.active + since.active, idle: this.measured.idle + since.idle };
  }
}

/** A measurement that can be paused, resumed and read. */
export interface ProfileWindow<P> {
  stop(): void;
  resume(): void;
  profile(): P;
}

/**
 * A profile turned on and off by a Go-style rate (0 = off), as `debug_setBlockProfileRate` and
 * `debug_setMutexProfileFraction` do: what it recorded stays readable while it is off, and
 * turning it on again continues it unless the new rate needs a new window.
 */
export class RateControlledProfile<W extends ProfileWindow<unknown>> {
  private window: W | undefined;

  constructor(
    private readonly open: (rate: number) => W,
    private readonly fits: (window: W, rate: number) => boolean = () => true,
  ) {}

  setRate(rate: number): void {
    if (rate === 0) this.window?.stop();
    else if (this.window && this.fits(this.window, rate)) this.window.resume();
    else {
      this.window?.stop();
      this.window = this.open(rate);
    }
  }

  /** What was recorded, or undefined when the profile was never turned on. */
  profile(): ReturnType<W['profile']> | undefined {
    return this.window?.profile() as ReturnType<W['profile']> | undefined;
  }
}
