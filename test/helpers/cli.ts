/** Runs the built CLI (`bin/run.js`) as a user would, capturing its output and exit code. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const CLI_ENTRY = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stderr with oclif's line wrapping and "›" markers removed, for matching messages. */
  message: string;
}

function unwrap(stderr: string): string {
  return stderr
    .replace(/\s*›\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Runs the CLI; `input`, when given, is written to its stdin (which is then closed); `cwd` is
 * its working directory (default: the test's).
 */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
  cwd?: string,
): Promise<CliResult> {
  return runProgram(process.execPath, [CLI_ENTRY, ...args], env, input, cwd);
}

/**
 * Runs the CLI as the installed `node-cli` command runs: `entry` (bin/run.js, or a link to it)
 * executed itself, so its sh launcher runs first.
 */
export function runCliExecutable(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  entry = CLI_ENTRY,
): Promise<CliResult> {
  return runProgram(entry, args, env);
}

function runProgram(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  input?: string,
  cwd?: string,
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      {
        env: { ...process.env, NO_COLOR: '1', ...env },
        cwd,
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, message: unwrap(stderr) });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Runs a command with `--json` and parses its output; fails with the output when it did not exit 0. */
export async function runCliJson<T>(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) {
    throw new Error(
      `node-cli ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
    );
  }
  return JSON.parse(result.stdout) as T;
}

/** Runs a command with `--json` and parses its output whatever its exit code (e.g. `daemon status`). */
export async function runCliJsonWithCode<T>(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; value: T }> {
  const result = await runCli([...args, '--json'], env);
  return { code: result.code, value: JSON.parse(result.stdout) as T };
}

export interface StreamingCli {
  lines: string[];
  stderr: () => string;
  exit: Promise<number | null>;
  interrupt(): Promise<number | null>;
}

/**
 * Starts the CLI as a child process, collecting stdout lines as they arrive; `env` is added to
 * the test's environment.
 */
export function startStreaming(args: readonly string[], env: NodeJS.ProcessEnv = {}): StreamingCli {
  const child: ChildProcess = spawn(process.execPath, [CLI_ENTRY, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    lines,
    stderr: () => stderr,
    exit,
    interrupt: () => {
      child.kill('SIGINT');
      return exit;
    },
  };
}
