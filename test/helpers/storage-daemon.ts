/** A test daemon with storage volumes of its own and a REST client, for the storage tests. */
import { join } from 'node:path';
import { RestClient } from '../../src/client/rest-client.js';
import { makeDataDir, startTestDaemon, type TestDaemon } from './test-daemon.js';

export interface StorageDaemon {
  daemon: TestDaemon;
  rest: RestClient;
  /** `<datadir>/vol-a`, `<datadir>/vol-b`, … in the order given to the daemon. */
  volumes: string[];
}

export async function startStorageDaemon(
  volumeCount: number,
  flags: readonly string[],
): Promise<StorageDaemon> {
  const dataDir = makeDataDir();
  const volumes = Array.from({ length: volumeCount }, (_, n) =>
    join(dataDir, `vol-${String.fromCharCode(97 + n)}`),
  );
  const daemon = await startTestDaemon(
    [...volumes.flatMap((volume) => ['--storage.volume', volume]), ...flags],
    dataDir,
  );
  const rest = new RestClient(daemon.endpoints.rest as string, { token: daemon.token });
  return { daemon, rest, volumes };
}
