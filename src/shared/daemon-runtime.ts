/**
 * How the background daemon's Node process is started: settings of V8 and of the C allocator
 * that bound the node's memory and can only be given when a process starts. The CLI passes them
 * when it spawns the daemon; `daemon start --foreground` runs in the CLI's own process, where
 * they apply only when set in its environment (docs/configuration.md, "Memory").
 *
 * - A 4 MiB semi-space (V8 defaults to 16 MiB) keeps the young generation small. Measured with
 *   the benchmark's transfers (docs/benchmarks.md): 55 to 75 MiB less resident memory, ERC-20
 *   transfers about a tenth slower, value transfers unchanged.
 * - Two malloc arenas instead of glibc's eight per core: each thread that allocates otherwise
 *   gets an arena of its own, which keeps what it freed.
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

export const DAEMON_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/** The node flags to start the daemon with, leaving out what the user's `NODE_OPTIONS` sets. */
export function daemonNodeFlags(nodeOptions: string | undefined): string[] {
  return DAEMON_NODE_FLAGS.filter(
    (flag) => !(nodeOptions ?? '').includes(flag.slice(0, flag.indexOf('='))),
  );
}
