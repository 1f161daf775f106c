// Renders the results as plain-text tables for stdout (and, pasted, for docs/benchmarks.md).

/** @param {unknown} value @param {number} digits */
function show(value, digits = 0) {
  if (value === undefined || value === null) return '-';
  if (typeof value !== 'number') return String(value);
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** A Markdown-compatible table with padded columns. @param {string[]} header @param {string[][]} rows */
function table(header, rows) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width, column) => (column === 0 ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

/** The figures of both nodes side by side, with the ratio node/anvil. */
function figuresTable(results) {
  const node = results['node-cli'];
  const anvil = results.anvil;
  const row = (label, pick, digits = 0) => {
    const mine = pick(node);
    const theirs = pick(anvil);
    const ratio =
      typeof mine === 'number' && typeof theirs === 'number' && theirs > 0 ? mine / theirs : null;
    return [
      label,
      show(mine, digits),
      show(theirs, digits),
      ratio === null ? '-' : `${ratio.toFixed(2)}x`,
    ];
  };
  const rows = [
    row('eth_blockNumber (req/s, 32 conns)', (s) => s?.reads?.eth_blockNumber?.requestsPerSecond),
    row('eth_getBalance (req/s, 32 conns)', (s) => s?.reads?.eth_getBalance?.requestsPerSecond),
    row('eth_call balanceOf (req/s, 32 conns)', (s) => s?.reads?.eth_call?.requestsPerSecond),
    row(
      '  the same, no request repeated (req/s)',
      (s) => s?.reads?.eth_call_distinct?.requestsPerSecond,
    ),
    row('value transfers/s, block time 1 s', (s) => s?.transfers?.value?.perSecond, 1),
    row('ERC-20 transfers/s, block time 1 s', (s) => s?.transfers?.token?.perSecond, 1),
    row('value transfers/s, block time 0', (s) => s?.transfersBlockTime0?.value?.perSecond, 1),
    row('ERC-20 transfers/s, block time 0', (s) => s?.transfersBlockTime0?.token?.perSecond, 1),
    row(
      `eth_getLogs median (ms, ${show(node?.logs?.logs ?? anvil?.logs?.logs)} logs)`,
      (s) => s?.logs?.medianMs,
      1,
    ),
    row(
      'cold start, fresh datadir (ms)',
      (s) => s?.coldStart?.cliFreshDataDir?.medianMs ?? s?.coldStart?.anvil?.medianMs,
    ),
    row('cold start, existing datadir (ms)', (s) => s?.coldStart?.cliExistingDataDir?.medianMs),
    row(
      'cold start, daemon entry only (ms)',
      (s) => s?.coldStart?.daemonEntryFreshDataDir?.medianMs,
    ),
    row('restart, 10 000 blocks: first answer (ms)', (s) => s?.restart?.firstAnswerMs),
    row('restart, 10 000 blocks: daemon start command (ms)', (s) => s?.restart?.startCommandMs),
    row('daemon stop command (ms)', (s) => s?.restart?.stopCommandMs),
    row('process gone after "stopped" (ms)', (s) => s?.restart?.goneAfterStoppedMs, 1),
    row('resident memory after start (MiB)', (s) => s?.memory?.afterStart?.total, 1),
    row('resident memory after the run (MiB)', (s) => s?.memory?.afterRun?.total, 1),
    row('  of which anonymous (heap)', (s) => s?.memory?.afterRun?.anonymous, 1),
    row('  of which file-backed (mmap)', (s) => s?.memory?.afterRun?.file, 1),
    row('  V8 heap held (debug_memStats)', (s) => s?.memory?.heapAfterRun?.heapTotal, 1),
    row('  V8 heap live (debug_memStats)', (s) => s?.memory?.heapAfterRun?.heapUsed, 1),
    row('  outside V8 (external)', (s) => s?.memory?.heapAfterRun?.external, 1),
    row('resident memory at rest, 40 s later (MiB)', (s) => s?.memory?.atRest?.total, 1),
    row('  of which anonymous (heap)', (s) => s?.memory?.atRest?.anonymous, 1),
    row('  of which file-backed (mmap)', (s) => s?.memory?.atRest?.file, 1),
  ];
  return table(['figure', 'node-cli', 'anvil', 'node/anvil'], rows);
}

/**
 * Latency and CPU use of each read load test (1.00 = one core busy): the load generator, the
 * node under test, and every other process of the machine.
 */
function loadTable(results) {
  const rows = [];
  for (const [name, suite] of Object.entries(results)) {
    for (const [method, load] of Object.entries(suite?.reads ?? {})) {
      if (load.error) continue;
      rows.push([
        `${name} ${method}`,
        show(load.p50Ms, 2),
        show(load.p99Ms, 2),
        show(load.rpcErrors + load.httpErrors),
        show(load.clientCpuShare, 2),
        show((load.clientCpuShare / load.requestsPerSecond) * 1e6, 1),
        show(load.serverCpuShare, 2),
        show(
          load.machineCpuShare === null || load.serverCpuShare === null
            ? null
            : load.machineCpuShare - load.clientCpuShare - load.serverCpuShare,
          2,
        ),
      ]);
    }
  }
  return table(
    [
      'load test',
      'p50 ms',
      'p99 ms',
      'errors',
      'client CPU',
      'client µs/req',
      'server CPU',
      'other CPU',
    ],
    rows,
  );
}

/** eth_blockNumber latency and block gaps while each stall probe ran. */
function stallTable(results) {
  const probes = results['node-cli']?.stallProbes?.probes ?? [];
  return table(
    ['stall probe', 'probe ms', 'samples', 'p50 ms', 'p99 ms', 'max ms', 'max block gap s'],
    probes.map((probe) => [
      probe.probe,
      show(probe.probeMs),
      show(probe.samples),
      show(probe.p50Ms),
      show(probe.p99Ms),
      show(probe.maxMs),
      show(probe.maxBlockGapS),
    ]),
  );
}

/** The worse of a burst's two eth_blockNumber p99 latencies (value and ERC-20), in ms. */
export function burstP99(burst) {
  const p99s = [burst?.value, burst?.token].map((run) => run?.blockNumberLatency?.p99Ms);
  return p99s.every((p99) => typeof p99 === 'number') ? Math.max(...p99s) : undefined;
}

/** The burst workloads (4 000 transactions, and the opt-in 10 000) of both nodes side by side. */
export function burstTable(results) {
  const rows = [];
  for (const [key, label] of [
    ['burst', 'burst'],
    ['burst10k', '10k burst'],
  ]) {
    const some = results['node-cli']?.[key] ?? results.anvil?.[key];
    if (some === undefined) continue;
    for (const [kind, name] of [
      ['value', 'value'],
      ['token', 'ERC-20'],
    ]) {
      const count = some[kind]?.transactions;
      const row = (title, pick, digits = 0) => {
        const mine = pick(results['node-cli']?.[key]?.[kind]);
        const theirs = pick(results.anvil?.[key]?.[kind]);
        const ratio =
          typeof mine === 'number' && typeof theirs === 'number' && theirs > 0
            ? `${(mine / theirs).toFixed(2)}x`
            : '-';
        return [title, show(mine, digits), show(theirs, digits), ratio];
      };
      rows.push(
        row(`${label}, ${show(count)} ${name} transfers: accepted/s`, (r) => r?.acceptedPerSecond),
        row(`  committed/s`, (r) => r?.committedPerSecond),
        row(`  node CPU ms per 1 000 accepted`, (r) => r?.cpuMsPer1000Accepted),
        row(`  node CPU ms per 1 000 committed`, (r) => r?.cpuMsPer1000Committed),
        row(`  main thread's share per 1 000 accepted`, (r) => r?.mainThreadCpuMsPer1000Accepted),
        row(`  eth_blockNumber p99 meanwhile (ms)`, (r) => r?.blockNumberLatency?.p99Ms, 1),
      );
    }
    rows.push([
      `${label}: resident memory after it (MiB)`,
      show(results['node-cli']?.[key]?.residentMiB, 1),
      show(results.anvil?.[key]?.residentMiB, 1),
      '-',
    ]);
  }
  return table(['burst, block time 1 s', 'node-cli', 'anvil', 'node/anvil'], rows);
}

/**
 * The soak of each node that ran it: resident memory after the warm-up, at its start and end
 * (medians of a few samples), lowest and highest, and the drift from start to end.
 */
export function soakTable(results) {
  const rows = [];
  for (const [name, result] of Object.entries(results)) {
    const soak = result?.soak;
    if (soak === undefined) continue;
    if (soak.error !== undefined) {
      rows.push([`${name}: ${soak.error}`, '', '', '', '', '']);
      continue;
    }
    for (const [part, label] of [
      ['resident', 'resident'],
      ['anonymous', '  anonymous'],
      ['fileBacked', '  file-backed'],
    ]) {
      const figures = soak[part];
      rows.push([
        `${name}, ${show(soak.minutes)} min: ${label}`,
        show(figures.startMiB, 1),
        show(figures.endMiB, 1),
        show(figures.minMiB, 1),
        show(figures.maxMiB, 1),
        `${figures.driftPercent > 0 ? '+' : ''}${show(figures.driftPercent, 1)} %`,
      ]);
    }
    rows.push([
      `  ${show(soak.transfersSent)} transfers (${show(soak.transfersRefused)} refused), ${show(soak.reads)} reads (${show(soak.readErrors)} failed), ${show(soak.blocks)} blocks`,
      '',
      '',
      '',
      '',
      '',
    ]);
  }
  return table(['soak (MiB, after the warm-up)', 'start', 'end', 'min', 'max', 'drift'], rows);
}

/**
 * The storage layer's transfers of one file beside the raw speed of the same disk in the same
 * run (`dd conv=fsync` for writes, `cat` for reads, the cold one after the pages were dropped),
 * and the daemon's resident memory around them.
 */
export function storageTable(storage) {
  const { write, readCold, readWarm, memory } = storage;
  const ratio = (figures) =>
    typeof figures?.ratio === 'number' ? `${figures.ratio.toFixed(2)}x` : '-';
  const repeated = memory?.repeatedUploads;
  return table(
    [`storage, ${show(storage.fileMiB)} MiB file`, 'node-cli', 'raw disk', 'node/raw'],
    [
      [
        'upload (MiB/s) vs dd conv=fsync',
        show(write?.uploadMiBps),
        show(write?.ddFsyncMiBps),
        ratio(write),
      ],
      [
        "the daemon's first upload (MiB/s; before the rounds)",
        write?.firstUpload
          ? `${show(write.firstUpload.uploadMiBps)} (${show(write.firstUpload.daemonCpuSeconds, 2)} CPU s)`
          : '-',
        '',
        '',
      ],
      [
        'download, cold (MiB/s) vs cat',
        show(readCold?.downloadMiBps),
        show(readCold?.catMiBps),
        ratio(readCold),
      ],
      [
        'download, warm (MiB/s) vs cat',
        show(readWarm?.downloadMiBps),
        show(readWarm?.catMiBps),
        ratio(readWarm),
      ],
      [
        'node-cli files add / files get -o (MiB/s, whole CLI call)',
        storage.cli ? `${show(storage.cli.addMiBps)} / ${show(storage.cli.getMiBps)}` : '-',
        '',
        '',
      ],
      [
        'chunk-io addon (native hashing and writes)',
        storage.chunkIoAddonBuilt === undefined
          ? '-'
          : storage.chunkIoAddonBuilt
            ? 'built'
            : 'absent',
        '',
        '',
      ],
      [
        'daemon CPU s: upload, cold download',
        `${show(write?.daemonCpuSeconds, 2)}, ${show(readCold?.daemonCpuSeconds, 2)}`,
        '',
        '',
      ],
      [
        'resident MiB: idle, upload peak, download peak',
        `${show(memory?.idleRssMiB)}, ${show(memory?.uploadPeakRssMiB)}, ${show(memory?.downloadPeakRssMiB)}`,
        '',
        '',
      ],
      [
        `resident MiB around ${show(repeated?.uploads)} uploads of ${show(repeated?.fileMiB)} MiB: before, peak, after`,
        `${show(repeated?.beforeMiB)}, ${show(repeated?.peakMiB)}, ${show(repeated?.afterMiB)}`,
        '',
        '',
      ],
    ],
  );
}

/** @param {import('./targets.js').TargetOutcome[]} outcomes */
function targetsTable(outcomes) {
  return table(
    ['target', 'goal', 'measured', 'result'],
    outcomes.map((outcome) => [
      outcome.name,
      outcome.goal,
      outcome.value === null
        ? '-'
        : show(outcome.value, outcome.goal.includes('x') ? 2 : 0) +
          (outcome.goal.includes('x') ? 'x' : ''),
      outcome.verdict,
    ]),
  );
}

/** Every `error` recorded anywhere in the results, as text lines. */
function errorLines(value, found = []) {
  if (value && typeof value === 'object') {
    if (typeof value.error === 'string') found.push(`  ${value.error}`);
    for (const child of Object.values(value)) errorLines(child, found);
  }
  return found;
}

/** The whole report as text. */
export function renderReport(results, outcomes) {
  const errors = errorLines(results);
  return [
    figuresTable(results),
    burstTable(results),
    loadTable(results),
    stallTable(results),
    ...(results['node-cli']?.storage?.write ? [storageTable(results['node-cli'].storage)] : []),
    ...(Object.values(results).some((result) => result?.soak) ? [soakTable(results)] : []),
    targetsTable(outcomes),
    ...(errors.length > 0 ? [`measurements that failed:\n${errors.join('\n')}`] : []),
  ].join('\n\n');
}
