/**
 * `console --exec` against a real daemon: rpc() with the token, an ethers provider on the same
 * node, results printed as JSON; without a terminal and without --exec, a usage error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('console', () => {
  let daemon: TestDaemon;
  const exec = (code: string) => runCli(['console', '--datadir', daemon.dataDir, '--exec', code]);

  beforeAll(async () => {
    daemon = await startTestDaemon();
  });

  afterAll(async () => {
    await daemon?.stop();
  });

  it('evaluates with rpc(), the provider and ethers in scope', async () => {
    expect(await exec("await rpc('eth_chainId')")).toMatchObject({ code: 0, stdout: '0x2328\n' });
    const accounts = await exec("await rpc('personal_listAccounts')");
    expect(accounts.code).toBe(0);
    expect(JSON.parse(accounts.stdout)).toHaveLength(10);
    const balance = await exec(
      "ethers.formatEther(await provider.getBalance('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 0))",
    );
    expect(balance).toMatchObject({ code: 0, stdout: '10000.0\n' });
  });

  it('reports errors in one line, and needs a terminal without --exec', async () => {
    const failed = await exec("await rpc('eth_nope')");
    expect(failed.code).toBe(1);
    expect(failed.message).toContain('the method eth_nope does not exist/is not available');
    const piped = await runCli(['console', '--datadir', daemon.dataDir], {}, '1 + 1\n');
    expect(piped.code).toBe(2);
    expect(piped.message).toContain('the console needs a terminal');
  });
});
