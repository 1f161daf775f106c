/**
 * `config show` through the built binary: every option with the source that won, by the
 * daemon's precedence flag > environment > config.json > default; a bad value is a usage error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliJson } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/test-daemon.js';

interface Shown {
  configFile: string;
  options: Record<string, { value: string; source: string }>;
}

describe('config show', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = makeDataDir();
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ 'block-time': '4s', 'chain-id': 4242, 'json-rpc.gas-cap': 1000000 }),
    );
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('shows each value with its source, in precedence order', async () => {
    const shown = await runCliJson<Shown>(
      ['config', 'show', '--datadir', dataDir, '--chain-id', '77'],
      { NODE_CLI_BLOCK_TIME: '2s' },
    );
    expect(shown.configFile).toBe(join(dataDir, 'config.json'));
    expect(shown.options).toMatchObject({
      'chain-id': { value: '77', source: 'flag' },
      'block-time': { value: '2s', source: 'environment' },
      'json-rpc.gas-cap': { value: '1000000', source: 'config file' },
      'json-rpc.address': { value: '127.0.0.1:8545', source: 'default' },
    });
    const human = await runCli(['config', 'show', '--datadir', dataDir]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ {2}block-time +4s {2}\(config file\)$/m);
  });

  it('names a bad value and where it came from, exit 2', async () => {
    const result = await runCli(['config', 'show', '--datadir', dataDir], {
      NODE_CLI_BLOCK_TIME: 'soon',
    });
    expect(result.code).toBe(2);
    expect(result.message).toContain('invalid value for environment variable NODE_CLI_BLOCK_TIME');
  });
});
