/** Foundry's cast (npm package `@foundry-rs/cast-linux-amd64`), run as a child process. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CAST = fileURLToPath(new URL('../../node_modules/.bin/cast', import.meta.url));

/** Runs `cast <args> --rpc-url <rpcUrl>` and resolves to its trimmed standard output. */
export function runCast(rpcUrl: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(CAST, [...args, '--rpc-url', rpcUrl], (error, stdout, stderr) =>
      error ? reject(new Error(`cast ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim()),
    ),
  );
}
