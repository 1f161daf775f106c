/**
 * One recording at a time of an instrument the process has once (the CPU profiler, the tracing
 * agent, the event-loop windows): a second start is refused with a clear error instead of
 * silently replacing or interleaving the first. A recording is either started and stopped by
 * the caller, or timed, in which case it ends by itself and only then writes its file.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../../shared/errors.js';
import type { ProfileDirectory } from './profile-directory.js';

/** A recording in progress. */
export interface Recording {
  /** Ends the recording and writes its file to `path`. */
  finish(path: string): Promise<void>;
}

interface Started {
  path: string;
  recording: Recording;
}

interface Active {
  timed: boolean;
  /** Settles once the recording has started (or failed to). */
  started: Promise<Started>;
  stopping: boolean;
}

/** Longest timed recording, in seconds: a request is held open for all of it. */
export const MAX_RECORDING_SECONDS = 3600;

export class Recorder {
  private active: Active | undefined;

  /**
   * @param activity what is recorded, as it reads in errors ("CPU profiling")
   * @param begin starts a recording whose file will be `path`
   */
  constructor(
    private readonly activity: string,
    private readonly directory: ProfileDirectory,
    private readonly begin: (path: string) => Promise<Recording> | Recording,
  ) {}

  /** Starts a recording to `file` (resolved in the profile directory); stop it with `stop`. */
  async start(file: string): Promise<string> {
    return (await this.open(file, false)).path;
  }

  /** Ends the recording `start` began, writes its file, and returns the file's path. */
  async stop(): Promise<string> {
    const active = this.active;
    if (active === undefined || active.stopping) {
      throw new ConflictError(`${this.activity} not in progress`);
    }
    if (active.timed) {
      throw new ConflictError(
        `${this.activity} in progress is timed: it ends by itself when its duration is over`,
      );
    }
    active.stopping = true;
    return this.finish(await active.started);
  }

  /** Records for `seconds`, writes the file, and returns its path. */
  async record(file: string, seconds: number): Promise<string> {
    const started = await this.open(file, true);
    await sleep(seconds * 1000, undefined, { ref: false });
    return this.finish(started);
  }

  private open(file: string, timed: boolean): Promise<Started> {
    if (this.active) throw new ConflictError(`${this.activity} already in progress`);
    // Claimed before the first await, so two calls in the same turn cannot both start.
    const started = (async () => {
      const path = await this.directory.resolve(file);
      return { path, recording: await this.begin(path) };
    })();
    const active: Active = { timed, started, stopping: false };
    this.active = active;
    started.catch(() => {
      if (this.active === active) this.active = undefined;
    });
    return started;
  }

  private async finish({ path, recording }: Started): Promise<string> {
    try {
      await recording.finish(path);
      return path;
    } finally {
      this.active = undefined;
    }
  }
}
