// Workload (storage): upload and download throughput of the storage layer for one large file
// (256 MiB by default) beside the raw speed of the same disk in the same run: `dd` writing the
// same bytes with conv=fsync (the upload also fsyncs every chunk), and `cat` reading them (the
// download reads every chunk back and verifies its hash). Both sides read from the page cache,
// both write through it and sync. The daemon's resident memory is sampled during each transfer:
// it should not grow with the file's size.
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { RestClient } from '../../../dist/client/rest-client.js';
import { freePort } from '../processes/free-port.js';
import { daemonStartArgs, freshDataDir, runCli } from '../processes/node-cli.js';
import { residentMiB } from '../processes/proc-stats.js';

const MiB = 1024 * 1024;
const SAMPLE_EVERY_MS = 100;

/** Runs `work` while sampling the resident memory of `pid`; answers seconds and the peak MiB. */
async function timedWithMemory(pid, work) {
  let peak = residentMiB(pid).total;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentMiB(pid).total);
  }, SAMPLE_EVERY_MS);
  const started = performance.now();
  try {
    await work();
    return { seconds: (performance.now() - started) / 1000, peakRssMiB: Math.round(peak) };
  } finally {
    clearInterval(timer);
  }
}

/** Seconds `command` takes. */
function timedCommand(command, args) {
  const started = performance.now();
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'ignore'] });
  return (performance.now() - started) / 1000;
}

/** A file of `mib` MiB of random bytes at `path`, written 8 MiB at a time. */
function writeRandomFile(path, mib) {
  writeFileSync(path, Buffer.alloc(0));
  for (let written = 0; written < mib; written += 8) {
    writeFileSync(path, randomBytes(8 * MiB), { flag: 'a' });
  }
}

const rate = (mib, seconds) => Math.round((mib / seconds) * 10) / 10;

/**
 * Upload and download of one `fileMiB` file through REST against `dd`/`cat` on the same disk.
 * @param {number} fileMiB
 */
export async function measureStorageThroughput(fileMiB = 256) {
  const dataDir = freshDataDir();
  const port = await freePort();
  const started = JSON.parse(
    await runCli(daemonStartArgs(dataDir, port, '1s', ['--storage.scrub-rate', '0'])),
  );
  const token = readFileSync(join(dataDir, 'auth.token'), 'utf8').trim();
  const rest = new RestClient(started.endpoints.rest, { token });
  const source = join(dataDir, 'source.bin');
  const copy = join(dataDir, 'dd-copy.bin');
  try {
    writeRandomFile(source, fileMiB);
    const size = statSync(source).size;
    const ddSeconds = timedCommand('dd', [`if=${source}`, `of=${copy}`, 'bs=1M', 'conv=fsync']);
    const catSeconds = timedCommand('sh', ['-c', `cat "${copy}" > /dev/null`]);
    rmSync(copy);
    const idleRssMiB = Math.round(residentMiB(started.pid).total);

    let fileId;
    const upload = await timedWithMemory(started.pid, async () => {
      const file = await rest.upload(createReadStream(source), { name: 'bench', size });
      fileId = file.id;
    });
    const download = await timedWithMemory(started.pid, async () => {
      const { stream } = await rest.download(fileId);
      let received = 0;
      for await (const part of stream) received += part.length;
      if (received !== size) throw new Error(`downloaded ${received} of ${size} bytes`);
    });
    const result = {
      fileMiB,
      uploadMiBps: rate(fileMiB, upload.seconds),
      downloadMiBps: rate(fileMiB, download.seconds),
      ddFsyncWriteMiBps: rate(fileMiB, ddSeconds),
      catReadMiBps: rate(fileMiB, catSeconds),
      idleRssMiB,
      uploadPeakRssMiB: upload.peakRssMiB,
      downloadPeakRssMiB: download.peakRssMiB,
    };
    result.uploadVsDd = Math.round((result.uploadMiBps / result.ddFsyncWriteMiBps) * 100) / 100;
    result.downloadVsCat = Math.round((result.downloadMiBps / result.catReadMiBps) * 100) / 100;
    return result;
  } finally {
    await rest.close();
    await runCli(['daemon', 'stop', '--datadir', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `node scripts/bench/workloads/storage-throughput.js [MiB]` runs this workload alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    JSON.stringify(await measureStorageThroughput(Number(process.argv[2] ?? 256)), null, 2),
  );
}
