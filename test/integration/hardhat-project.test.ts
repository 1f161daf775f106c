/**
 * The Hardhat 2 project in test/fixtures/hardhat-project, run as its users run it: `npx hardhat
 * test --network nodecli` in the project, against a real daemon. It compiles offline (solc-js
 * from the installed `solc` package), deploys, transfers, reads events and revert reasons, and
 * signs typed data through hardhat-ethers; its dev-methods file (switched on by
 * NODE_CLI_DEV_METHODS=1) snapshots and reverts between cases, advances time for a time lock,
 * impersonates a holder without its key and sets balance, code and storage.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const PROJECT = fileURLToPath(new URL('../fixtures/hardhat-project/', import.meta.url));
/** Compiling with solc-js and running the suite take tens of seconds on a busy machine. */
const HARDHAT_TIMEOUT_MS = 240_000;

interface HardhatRun {
  code: number;
  output: string;
}

function hardhatTest(rpcUrl: string): Promise<HardhatRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_CLI_RPC_URL: rpcUrl,
    HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
    NO_COLOR: '1',
    // Jest's --experimental-vm-modules is the test runner's: Hardhat runs as from a shell.
    NODE_OPTIONS: '',
    NODE_CLI_DEV_METHODS: '1',
  };
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['hardhat', 'test', '--network', 'nodecli'],
      { cwd: PROJECT, env, timeout: HARDHAT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('a Hardhat 2 project against the daemon', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    // Left by an earlier run, they would spare Hardhat the (offline) compilation this checks.
    for (const output of ['artifacts', 'cache']) {
      rmSync(join(PROJECT, output), { recursive: true, force: true });
    }
    daemon = await startTestDaemon(['--block-time', '0']);
  }, 120_000);
  afterAll(() => daemon?.stop());

  it(
    'passes `npx hardhat test --network nodecli`',
    async () => {
      const run = await hardhatTest(daemon.endpoints.http);
      expect({ code: run.code, output: run.output }).toEqual({
        code: 0,
        output: expect.stringMatching(/15 passing/),
      });
      expect(run.output).toMatch(/Compiled 2 Solidity files successfully/);
      expect(run.output).not.toMatch(/failing|pending/);
    },
    HARDHAT_TIMEOUT_MS + 10_000,
  );
});
