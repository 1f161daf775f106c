/** The first screens a new operator sees: the topic list and `-h`. */
import { describe, expect, it } from '@jest/globals';
import { runCli } from '../helpers/cli.js';

describe('node-cli help', () => {
  it('describes each topic by itself, not by its first command', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/daemon\s+Start, stop, inspect and initialise/);
    expect(help.stdout).toMatch(/account\s+Manage the keystore accounts/);
    expect(help.stdout).not.toMatch(/daemon\s+Initialise a data directory/);
  });

  it('takes -h as --help', async () => {
    const short = await runCli(['daemon', 'stop', '-h']);
    const long = await runCli(['daemon', 'stop', '--help']);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(long.stdout);
    expect(short.stdout).toContain('USAGE');
  });
});
