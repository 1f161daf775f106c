// Workload (storage): upload and download throughput of the storage layer for one large file
// (256 MiB by default) beside the raw speed of the same disk in the same run, like with like:
//
// - Write: `dd bs=1M conv=fsync` copies the source file into the data directory; the upload sends
//   the same source to `POST /v1/api/storage/files`. Both read the source from the page cache (it
//   is read once just before each) and both end with their bytes on disk (dd's final fsync; the
//   daemon's fsync of every chunk and of the directories before it answers).
// - Read, cold: `cat` of dd's copy and a download from `GET …/raw`, each after the pages of the
//   files it reads were dropped from the page cache (`dd iflag=nocache count=0` on dd's copy and
//   on every chunk file of the volume), so both read the disk. Read, warm: the same again with
//   the pages cached, so both read memory (the download still hashes every chunk).
//
// Each of the two cold comparisons runs ROUNDS times, the raw tool and the daemon taking turns,
// and the figures are the medians: this machine's disk is a virtual one whose host caches it, so
// one `dd` may run at 400 MiB/s and the next at 1 800, and a single pair compared whichever
// state the host happened to be in. Every upload sends different bytes (one byte changed in
// every MiB), so none is stored already, and each round first removes the file the one before
// uploaded, as an operator making room would.
//
// The daemon's first upload comes before the rounds and is reported on its own (`firstUpload`),
// as every other throughput figure of the benchmark is taken after a warm-up: a freshly started
// daemon compiles its upload path, grows its heap and thread pool to their working size and makes
// its first shard directories during it, and it used 30-50 % more CPU than the uploads after it.
//
// Transfers go through curl, whose own cost is next to nothing (`curl -T FILE`, `curl -o
// /dev/null`), so the figures are the daemon's. Each phase records the daemon's CPU seconds
// (user + system, all threads) and the load average, and the daemon's resident memory is sampled
// during each transfer: it should not grow with the file's size. Last, 60 uploads of 3 MiB
// files, each different, one after another, with the resident memory before and after: it
// should not grow with the number of uploads either (shared-memory chunk buffers once did, 3 MiB
// an upload). Needs curl, dd and cat on PATH.
import { execFile, execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { freePort } from '../processes/free-port.js';
import { CLI_ENTRY, daemonStartArgs, freshDataDir, runCli } from '../processes/node-cli.js';
import { cpuSeconds, residentMiB } from '../processes/proc-stats.js';
import { median } from '../statistics.js';

const MiB = 1024 * 1024;
const CHUNK_IO_ADDON = new URL(
  '../../../native/chunk-io/build/Release/chunk_io.node',
  import.meta.url,
);
const SAMPLE_EVERY_MS = 100;

/** Turns of the raw tool and the daemon for each cold comparison; the medians are reported. */
const ROUNDS = 3;

const round1 = (value) => Math.round(value * 10) / 10;
const round2 = (value) => Math.round(value * 100) / 100;

/**
 * Runs `work` (a child process, awaited) while sampling the resident memory of `pid`; answers
 * wall seconds, the daemon's CPU seconds, the peak MiB and what `work` resolved with.
 */
async function phase(pid, work) {
  let peak = residentMiB(pid).total;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentMiB(pid).total);
  }, SAMPLE_EVERY_MS);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  try {
    const output = await work();
    return {
      seconds: (performance.now() - started) / 1000,
      daemonCpuSeconds: round2(cpuSeconds(pid) - cpuBefore),
      peakRssMiB: Math.round(peak),
      output,
    };
  } finally {
    clearInterval(timer);
  }
}

/** Runs a command to its end without blocking the event loop; resolves with its stdout. */
function run(command, args) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * MiB }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

/**
 * Wall seconds and CPU seconds (user + system, from the shell's `times`) of a shell command
 * line run with `args` as its positional parameters.
 */
async function timedShell(commandLine, args) {
  const started = performance.now();
  const output = await run('sh', ['-c', `${commandLine}; times`, 'sh', ...args]);
  const seconds = (performance.now() - started) / 1000;
  // `times` prints the shell's user and system time, then its children's: `0m0.01s 0m0.29s`.
  const children = output.trim().split('\n').at(-1).split(' ');
  const cpu = children.reduce((sum, field) => {
    const match = /^(\d+)m([\d.]+)s$/.exec(field);
    return match ? sum + Number(match[1]) * 60 + Number(match[2]) : sum;
  }, 0);
  return { seconds, cpuSeconds: round2(cpu) };
}

/** A file of `mib` MiB of random bytes at `path`, written 8 MiB at a time. */
function writeRandomFile(path, mib) {
  writeFileSync(path, Buffer.alloc(0));
  for (let written = 0; written < mib; written += 8) {
    writeFileSync(path, randomBytes(8 * MiB), { flag: 'a' });
  }
}

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * Drops the cached pages of `paths` (they must be clean: written and synced) with
 * `dd iflag=nocache count=0`, which asks the kernel (posix_fadvise DONTNEED) to forget them.
 */
function dropCache(paths) {
  const script = 'for f in "$@"; do dd if="$f" iflag=nocache count=0 status=none; done';
  execFileSync('sh', ['-c', script, 'sh', ...paths]);
}

/** MiB of `paths` still in the page cache, from `fincore` (util-linux); undefined without it. */
function cachedMiB(paths) {
  try {
    const output = execFileSync(
      'fincore',
      ['--bytes', '--noheadings', '--raw', '-o', 'RES', ...paths],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    const bytes = output
      .split('\n')
      .filter(Boolean)
      .reduce((sum, line) => sum + Number(line), 0);
    return round1(bytes / MiB);
  } catch {
    return undefined;
  }
}

/** Makes the `mib` MiB file at `path` differ from what it held in every MiB (its byte 0 = `n`). */
function vary(path, mib, n) {
  const fd = openSync(path, 'r+');
  try {
    for (let offset = 0; offset < mib * MiB; offset += MiB)
      writeSync(fd, Buffer.from([n]), 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

/** The page cache reads `path` once, so the next reader finds it in memory. */
function warm(path) {
  execFileSync('sh', ['-c', 'cat "$1" > /dev/null', 'sh', path]);
}

const rate = (mib, seconds) => round1(mib / seconds);

const REPEATED_UPLOADS = 60;
const REPEATED_UPLOAD_MiB = 3;

/**
 * `REPEATED_UPLOADS` uploads of different `REPEATED_UPLOAD_MiB` files through `upload(path,
 * name)`, one after another; the daemon's resident MiB before, after, and at most meanwhile.
 */
async function repeatedUploads(pid, upload) {
  const path = join(freshDataDir(), 'repeated.bin');
  const bytes = randomBytes(REPEATED_UPLOAD_MiB * MiB);
  const before = residentMiB(pid).total;
  let peak = before;
  try {
    for (let n = 0; n < REPEATED_UPLOADS; n += 1) {
      // A different first byte in every chunk, so that no chunk is stored already.
      for (let offset = 0; offset < bytes.length; offset += MiB) bytes[offset] = n;
      writeFileSync(path, bytes);
      await upload(path, `repeated-${n}`);
      peak = Math.max(peak, residentMiB(pid).total);
    }
  } finally {
    rmSync(dirname(path), { recursive: true, force: true });
  }
  return {
    uploads: REPEATED_UPLOADS,
    fileMiB: REPEATED_UPLOAD_MiB,
    beforeMiB: Math.round(before),
    peakMiB: Math.round(peak),
    afterMiB: Math.round(residentMiB(pid).total),
  };
}

/**
 * The same file through the project's own client, as an operator moves it: `files add` of
 * fresh content (one byte changed in every MiB), then `files get -o`, each a whole CLI call
 * (its start included) from the page cache; MiB/s and the CLI's own CPU seconds.
 */
async function cliTransfers(pid, dataDir, source, fileMiB) {
  const datadir = ['--datadir', dataDir];
  const out = join(dataDir, 'cli-get.bin');
  const cli = (commandLine, args) =>
    phase(pid, () =>
      timedShell(`"$1" "$2" ${commandLine}`, [process.execPath, CLI_ENTRY, ...args]),
    );
  vary(source, fileMiB, ROUNDS);
  warm(source);
  const add = await cli('files add "$3" --datadir "$4" --json > /dev/null', [source, dataDir]);
  const { files } = JSON.parse(await runCli(['files', 'ls', '--json', ...datadir]));
  const file = files.findLast((listed) => listed.localPath === source);
  const get = await cli('files get "$3" -o "$4" --datadir "$5" > /dev/null', [
    file.id,
    out,
    dataDir,
  ]);
  if (statSync(out).size !== statSync(source).size) {
    throw new Error('files get wrote a file of another size');
  }
  rmSync(out, { force: true });
  await runCli(['files', 'rm', file.id, ...datadir]);
  return {
    addMiBps: rate(fileMiB, add.seconds),
    addCliCpuSeconds: add.output.cpuSeconds,
    getMiBps: rate(fileMiB, get.seconds),
    getCliCpuSeconds: get.output.cpuSeconds,
  };
}

/**
 * Upload and download of one `fileMiB` file through REST against `dd` and `cat` on the same disk.
 * @param {number} fileMiB
 */
export async function measureStorageThroughput(fileMiB = 256) {
  const dataDir = freshDataDir();
  const port = await freePort();
  const started = JSON.parse(
    await runCli(daemonStartArgs(dataDir, port, '1s', ['--storage.scrub-rate', '0'])),
  );
  const pid = started.pid;
  const token = readFileSync(join(dataDir, 'auth.token'), 'utf8').trim();
  const files = `${started.endpoints.rest}/storage/files`;
  const curl = ['-sS', '--fail-with-body', '-H', `authorization: Bearer ${token}`];
  const source = join(dataDir, 'source.bin');
  const copy = join(dataDir, 'dd-copy.bin');
  const chunkDir = join(dataDir, 'storage', 'chunks');
  try {
    writeRandomFile(source, fileMiB);
    const size = statSync(source).size;
    const idleRssMiB = Math.round(residentMiB(pid).total);
    const loadBefore = loadavg()[0];

    /** Uploads the file at `path` as `name`; resolves with the answer's text. */
    const uploadFile = (path, name) =>
      run('curl', [
        ...curl,
        '-X',
        'POST',
        '-H',
        'content-type: application/octet-stream',
        '-H',
        'expect:',
        '-T',
        path,
        `${files}?name=${name}`,
      ]);
    vary(source, fileMiB, ROUNDS + 1);
    warm(source);
    const first = await phase(pid, () => uploadFile(source, 'bench-first'));
    let fileId = JSON.parse(first.output).file.id;
    const writes = [];
    for (let n = 0; n < ROUNDS; n += 1) {
      vary(source, fileMiB, n);
      rmSync(copy, { force: true });
      warm(source);
      const dd = await timedShell('dd if="$1" of="$2" bs=1M conv=fsync status=none', [
        source,
        copy,
      ]);
      await run('curl', [...curl, '-X', 'DELETE', `${files}/${fileId}`]);
      warm(source);
      const upload = await phase(pid, () => uploadFile(source, `bench-${n}`));
      fileId = JSON.parse(upload.output).file.id;
      writes.push({ dd, upload });
    }

    const downloadOnce = () =>
      phase(pid, async () => {
        const received = Number(
          await run('curl', [
            ...curl,
            '-o',
            '/dev/null',
            '-w',
            '%{size_download}',
            `${files}/${fileId}/raw`,
          ]),
        );
        if (received !== size) throw new Error(`downloaded ${received} of ${size} bytes`);
      });
    const chunks = filesUnder(chunkDir);
    const coldReads = [];
    for (let n = 0; n < ROUNDS; n += 1) {
      dropCache([copy]);
      const catCachedMiB = cachedMiB([copy]);
      const cat = await timedShell('cat "$1" > /dev/null', [copy]);
      dropCache(chunks);
      const downloadCachedMiB = cachedMiB(chunks);
      const download = await downloadOnce();
      coldReads.push({
        cat,
        download,
        cachedBeforeMiB: { cat: catCachedMiB, download: downloadCachedMiB },
      });
    }
    const catWarm = await timedShell('cat "$1" > /dev/null', [copy]);
    const downloadWarm = await downloadOnce();
    const cli = await cliTransfers(pid, dataDir, source, fileMiB);
    const repeated = await repeatedUploads(pid, uploadFile);

    const writeRounds = writes.map(({ dd, upload }) => ({
      ddFsyncMiBps: rate(fileMiB, dd.seconds),
      uploadMiBps: rate(fileMiB, upload.seconds),
      ddCpuSeconds: dd.cpuSeconds,
      daemonCpuSeconds: upload.daemonCpuSeconds,
    }));
    const coldRounds = coldReads.map(({ cat, download, cachedBeforeMiB }) => ({
      catMiBps: rate(fileMiB, cat.seconds),
      downloadMiBps: rate(fileMiB, download.seconds),
      catCpuSeconds: cat.cpuSeconds,
      daemonCpuSeconds: download.daemonCpuSeconds,
      cachedBeforeMiB,
    }));
    const medianOf = (rounds, key) => median(rounds.map((round) => round[key]));
    const write = {
      ddFsyncMiBps: medianOf(writeRounds, 'ddFsyncMiBps'),
      uploadMiBps: medianOf(writeRounds, 'uploadMiBps'),
      ddCpuSeconds: medianOf(writeRounds, 'ddCpuSeconds'),
      daemonCpuSeconds: medianOf(writeRounds, 'daemonCpuSeconds'),
      rounds: writeRounds,
      firstUpload: {
        uploadMiBps: rate(fileMiB, first.seconds),
        daemonCpuSeconds: first.daemonCpuSeconds,
      },
    };
    const readCold = {
      catMiBps: medianOf(coldRounds, 'catMiBps'),
      downloadMiBps: medianOf(coldRounds, 'downloadMiBps'),
      catCpuSeconds: medianOf(coldRounds, 'catCpuSeconds'),
      daemonCpuSeconds: medianOf(coldRounds, 'daemonCpuSeconds'),
      rounds: coldRounds,
    };
    const readWarm = {
      catMiBps: rate(fileMiB, catWarm.seconds),
      downloadMiBps: rate(fileMiB, downloadWarm.seconds),
      catCpuSeconds: catWarm.cpuSeconds,
      daemonCpuSeconds: downloadWarm.daemonCpuSeconds,
    };
    return {
      fileMiB,
      // The daemon hashes and writes chunks natively when the addon was built (docs/storage.md).
      chunkIoAddonBuilt: existsSync(CHUNK_IO_ADDON),
      loadAverage: { before: round2(loadBefore), after: round2(loadavg()[0]) },
      write: { ...write, ratio: round2(write.uploadMiBps / write.ddFsyncMiBps) },
      readCold: { ...readCold, ratio: round2(readCold.downloadMiBps / readCold.catMiBps) },
      readWarm: { ...readWarm, ratio: round2(readWarm.downloadMiBps / readWarm.catMiBps) },
      cli,
      memory: {
        idleRssMiB,
        uploadPeakRssMiB: Math.max(
          first.peakRssMiB,
          ...writes.map(({ upload }) => upload.peakRssMiB),
        ),
        downloadPeakRssMiB: Math.max(
          ...coldReads.map(({ download }) => download.peakRssMiB),
          downloadWarm.peakRssMiB,
        ),
        repeatedUploads: repeated,
      },
    };
  } finally {
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
