/**
 * CPU profiles of the daemon's main thread through V8's sampling profiler (the inspector's
 * `Profiler` domain, on an in-process session). The file is the `.cpuprofile` JSON that Chrome
 * DevTools, VS Code and speedscope open. Worker threads (the eth_call threads) run their own
 * isolates and are not in it.
 */
import type { Session } from 'node:inspector/promises';
import type { ProfileDirectory } from './profile-directory.js';
import type { Recording } from './recorder.js';

/** One sample per millisecond, the interval DevTools uses. */
const SAMPLING_INTERVAL_MICROSECONDS = 1000;

export async function beginCpuProfile(
  session: Session,
  directory: ProfileDirectory,
): Promise<Recording> {
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_MICROSECONDS });
  await session.post('Profiler.start');
  return {
    finish: async (path) => {
      const { profile } = await session.post('Profiler.stop');
      await session.post('Profiler.disable');
      await directory.writeFile(path, JSON.stringify(profile));
    },
  };
}
