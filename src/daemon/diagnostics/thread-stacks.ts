/**
 * `debug_stacks` for a Node process: the JavaScript stack of the main thread and of every
 * worker thread, and the libuv handles that keep work pending (sockets, timers, signals), which
 * is the closest thing to Go's list of parked goroutines. Read from Node's diagnostic report,
 * without its environment variables, command line or network peers' names.
 */

interface ReportStack {
  message?: string;
  stack?: string[];
}

interface ReportHandle {
  type: string;
  is_active: boolean;
}

interface ThreadReport {
  header: { threadId: number };
  javascriptStack?: ReportStack;
  libuv?: ReportHandle[];
  workers?: ThreadReport[];
}

function describeThread(name: string, report: ThreadReport): string {
  const frames = report.javascriptStack?.stack ?? [];
  const lines = [`${name} (thread id ${report.header.threadId})`];
  if (frames.length === 0 || frames[0] === 'Unavailable.')
    lines.push('  idle: no JavaScript running');
  else lines.push(...frames.map((frame) => `  ${frame.trim()}`));
  const handles = new Map<string, number>();
  for (const handle of report.libuv ?? []) {
    if (handle.is_active) handles.set(handle.type, (handles.get(handle.type) ?? 0) + 1);
  }
  if (handles.size > 0) {
    const counts = [...handles].map(([type, count]) => `${type} ${count}`).join(', ');
    lines.push(`  active libuv handles: ${counts}`);
  }
  return lines.join('\n');
}

/** Node 20.13 added `excludeNetwork`; its types do not have it yet. */
type Report = NodeJS.ProcessReport & { excludeNetwork: boolean };

export function threadStacks(): string {
  const report = process.report as Report;
  const excluded = report.excludeNetwork;
  report.excludeNetwork = true;
  try {
    const main = report.getReport() as unknown as ThreadReport;
    const threads = [describeThread(`main thread, pid ${process.pid}`, main)];
    for (const [index, worker] of (main.workers ?? []).entries()) {
      threads.push(describeThread(`worker thread ${index + 1}`, worker));
    }
    return `${threads.join('\n\n')}\n`;
  } finally {
    report.excludeNetwork = excluded;
  }
}
