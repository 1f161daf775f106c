import { Args, Flags } from '@oclif/core';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { NodeCommand } from '../../cli/node-command.js';
import { moveFile, profileFileName, takeProfile, type ProfileKind } from '../../client/profiles.js';
import { parseDuration } from '../../shared/duration.js';

export interface ProfileResult {
  kind: ProfileKind;
  /** Absolute path of the file written. */
  file: string;
  bytes: number;
  /** Seconds sampled (CPU profiles only). */
  durationSeconds?: number;
}

/** The longest sample; the call waits that long besides --request-timeout. */
const MAX_DURATION_SECONDS = 300;
const DEFAULT_DURATION = '10s';

const OPEN_HINTS: Record<ProfileKind, string> = {
  cpu: 'open it in Chrome DevTools (Performance panel, "Load profile") or VS Code',
  heap: 'open it in Chrome DevTools (Memory panel, "Load profile")',
};

export default class DaemonProfile extends NodeCommand {
  static override summary = "Record a CPU profile or a heap snapshot of the daemon's main thread.";
  static override description =
    'cpu samples the daemon for --duration and writes a .cpuprofile; heap writes a .heapsnapshot ' +
    '(the daemon pauses while V8 walks its heap: seconds, more for a big heap). Both open in ' +
    'Chrome DevTools. The daemon writes the file into <datadir>/profiles (mode 0600: a heap ' +
    'snapshot holds every key the daemon holds) and the path is printed; with -o the file is ' +
    'moved there instead. Uses the debug JSON-RPC methods with the auth token of the data ' +
    'directory, so the debug namespace must be enabled (--evm.rpc.api). Only one CPU profile ' +
    'runs at a time.';
  static override examples = [
    '<%= config.bin %> daemon profile cpu',
    '<%= config.bin %> daemon profile cpu --duration 30s -o ./daemon.cpuprofile',
    '<%= config.bin %> daemon profile heap -o ./daemon.heapsnapshot',
  ];
  static override args = {
    kind: Args.string({
      description: 'cpu for a CPU profile, heap for a heap snapshot.',
      options: ['cpu', 'heap'],
      required: true,
    }),
  };
  static override flags = {
    duration: Flags.string({
      description: `How long to sample a CPU profile, whole seconds from 1s to ${MAX_DURATION_SECONDS / 60}m (cpu only; default 10s).`,
    }),
    output: Flags.string({
      char: 'o',
      description: 'Move the file here instead of leaving it in <datadir>/profiles.',
    }),
  };

  async run(): Promise<ProfileResult> {
    const { args, flags } = await this.parse(DaemonProfile);
    const kind = args.kind as ProfileKind;
    if (kind === 'heap' && flags.duration !== undefined) {
      this.usageError('--duration applies to cpu profiles only');
    }
    const seconds = this.durationSeconds(flags.duration ?? DEFAULT_DURATION);
    const daemon = this.connectDaemon(flags);
    let written: string;
    try {
      if (kind === 'cpu') this.log(`sampling the daemon for ${seconds} s ...`);
      written = await takeProfile(daemon.rpc, kind, profileFileName(kind), seconds);
    } finally {
      await daemon.close();
    }
    const file = flags.output === undefined ? written : resolve(flags.output);
    const bytes =
      flags.output === undefined ? (await stat(written)).size : await this.move(written, file);
    this.log(`wrote ${file} (${bytes} bytes); ${OPEN_HINTS[kind]}`);
    return { kind, file, bytes, ...(kind === 'cpu' ? { durationSeconds: seconds } : {}) };
  }

  /** Moves the profile to -o; when that fails, says where the profile still is. */
  private async move(written: string, file: string): Promise<number> {
    try {
      return await moveFile(written, file);
    } catch (error) {
      this.error(
        `could not move the profile to ${file}: ${(error as Error).message}; it stays at ${written}`,
        { exit: 1 },
      );
    }
  }

  private durationSeconds(raw: string): number {
    let milliseconds: number;
    try {
      milliseconds = parseDuration(raw);
    } catch (error) {
      this.usageError(`--duration: ${(error as Error).message}`);
    }
    if (
      milliseconds % 1000 !== 0 ||
      milliseconds < 1000 ||
      milliseconds > MAX_DURATION_SECONDS * 1000
    ) {
      this.usageError(
        `--duration must be whole seconds from 1s to ${MAX_DURATION_SECONDS / 60}m, got "${raw}"`,
      );
    }
    return milliseconds / 1000;
  }
}
