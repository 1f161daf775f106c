import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { CLI_ENTRY, runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Heights shown so far on `node top`'s screens, in order. */
function heightsIn(output: string): number[] {
  return [...output.matchAll(/height\S*\s+(\d+)\s+\(head/g)].map((match) => Number(match[1]));
}

describe('node top', () => {
  let daemon: TestDaemon;

  beforeAll(async () => {
    daemon = await startTestDaemon(['--metrics.enable', '--metrics.address', '127.0.0.1:0']);
  });
  afterAll(() => daemon?.stop());

  /** `node top` in a pseudo-terminal (`script`): what is written to its stdin is typed. */
  function topInPty() {
    const command = `${process.execPath} ${CLI_ENTRY} node top --datadir ${daemon.dataDir} --interval 200`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    return {
      output: () => output,
      type: (keys: string) => child.stdin.write(keys),
      exited,
      kill: () => {
        if (child.exitCode === null) child.kill('SIGKILL');
      },
    };
  }

  it('runs in a pseudo-terminal, shows the height changing and quits on q', async () => {
    const top = topInPty();
    try {
      await waitFor(
        () => new Set(heightsIn(top.output())).size >= 2,
        30_000,
        'two different heights on the screen',
      );
      const heights = heightsIn(top.output());
      expect(heights.at(-1)).toBeGreaterThan(heights[0]);
      expect(top.output()).toContain('\x1b[2J');
      expect(top.output()).toMatch(/blocks\/s\s+\d/);
      expect(top.output()).toMatch(/memory\s+[\d.]+ MiB resident/);
      top.type('q');
      expect(await top.exited).toBe(0);
    } finally {
      top.kill();
    }
  });

  it('quits on Ctrl-C typed in the terminal', async () => {
    const top = topInPty();
    try {
      await waitFor(() => heightsIn(top.output()).length >= 1, 30_000, 'the first screen');
      top.type('\x03');
      expect(await top.exited).toBe(0);
    } finally {
      top.kill();
    }
  });

  it('prints one key=value line per refresh when stdout is not a terminal', async () => {
    const result = await runCli([
      'node',
      'top',
      '--datadir',
      daemon.dataDir,
      '--interval',
      '200',
      '--count',
      '3',
    ]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^\S+Z height=\d+ age=[\d.]+s blocks\/s=/);
    expect(lines[0]).toContain('requests/s=-');
    expect(lines[2]).toMatch(/requests\/s=[\d.]+ p99=/);
  });

  it('says what is wrong when no metrics listener answers', async () => {
    const result = await runCli([
      'node',
      'top',
      '--metrics-url',
      'http://127.0.0.1:1',
      '--count',
      '1',
    ]);
    expect(result.code).toBe(1);
    expect(result.message).toContain('cannot read the metrics at http://127.0.0.1:1/metrics');
  });
});
