/**
 * The release after heavy work against the real daemon: large answers (here `eth_call`s that each
 * return 1 MiB) are followed, once the node is quiet, by a full heap collection and, where the
 * optional addon was built (on Linux with glibc), `malloc_trim` (`src/daemon/heavy-work-release.ts`,
 * `src/daemon/os-memory.ts`). Both are told
 * at `debug` in the log. A daemon with the addon turned off (`--no-os-memory-release`) serves the
 * same and releases without it.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { OS_MEMORY_ADDON } from '../../src/daemon/os-memory.js';
import { RELEASE_ANSWER_CHARS } from '../../src/daemon/heavy-work-release.js';
import { daemonLogRecords } from '../helpers/daemon-log.js';
import { waitFor } from '../helpers/processes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TARGET = `0x${'ab'.repeat(19)}01`;
const RETURNED_BYTES = 2 ** 20;
/** PUSH3 1 MiB, PUSH1 0, RETURN: returns 1 MiB of zeros (2.2 million gas of memory). */
const RETURN_ONE_MIB = '0x621000006000f3';
const RELEASED = /^memory released after heavy work \(answers\)$/;

const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
const addonWorks = existsSync(OS_MEMORY_ADDON) && report.header.glibcVersionRuntime !== undefined;

describe('memory release after heavy work', () => {
  let daemon: TestDaemon | undefined;

  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
  });

  /** Serves large answers until they make heavy work, and gives the release's log record. */
  async function releaseAfterLargeAnswers(running: TestDaemon) {
    await running.authedRpc.call('hardhat_setCode', [TARGET, RETURN_ONE_MIB]);
    const answers = Math.ceil(RELEASE_ANSWER_CHARS / (2 * RETURNED_BYTES)) + 1;
    for (let served = 0; served < answers; served += 1) {
      const returned = await running.rpc.call<string>('eth_call', [
        { to: TARGET, data: `0x${served.toString(16).padStart(4, '0')}` },
        'latest',
      ]);
      expect(returned.length).toBe(2 + 2 * RETURNED_BYTES);
    }
    const released = () =>
      daemonLogRecords(running.dataDir).find((record) => RELEASED.test(String(record.msg)));
    await waitFor(() => released() !== undefined, 20_000, 'the release after large answers');
    // The daemon goes on serving.
    expect(await running.rpc.call<string>('eth_blockNumber', [])).toMatch(/^0x[0-9a-f]+$/);
    return released() as Record<string, unknown>;
  }

  const logged = (running: TestDaemon, message: string) =>
    daemonLogRecords(running.dataDir).some((record) => record.msg === message);

  (addonWorks ? it : it.skip)(
    'collects the heap and trims malloc after large answers',
    async () => {
      daemon = await startTestDaemon(['--block-time', '0', '--log-level', 'debug']);
      expect(logged(daemon, 'os-memory addon loaded')).toBe(true);
      const released = await releaseAfterLargeAnswers(daemon);
      expect(typeof released.mallocTrimReleased).toBe('boolean');
    },
  );

  it('starts, serves and releases without the addon (--no-os-memory-release)', async () => {
    daemon = await startTestDaemon([
      '--block-time',
      '0',
      '--log-level',
      'debug',
      '--no-os-memory-release',
    ]);
    expect(logged(daemon, 'os-memory release turned off (--no-os-memory-release)')).toBe(true);
    const released = await releaseAfterLargeAnswers(daemon);
    expect(released.osMemory).toBe('absent');
  });
});
