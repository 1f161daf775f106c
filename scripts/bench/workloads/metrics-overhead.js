// Workload (g): what metrics cost reads. Two fresh daemons, one with --metrics.enable and one
// without, take the cheap read workloads in alternation (the same load tests as workload (a)),
// while the first is scraped every second, more often than Prometheus' default 15 s. The target
// is read throughput with metrics within 5% of without. Cheap reads show the cost best: a call
// that takes microseconds is where a per-call recorder would show.
//
// Run alone (without the rest of the bench): node scripts/bench/workloads/metrics-overhead.js
//   [--duration <s>] [--read-rounds <n>] [--workers <n>]
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { DEV_ADDRESSES } from '../../../dist/daemon/chain/genesis.js';
import { startNodeCli } from '../processes/node-cli.js';
import { connectRpc } from '../rpc.js';
import { readSettings } from '../settings.js';
import { measureReadsAlternating, readWorkloads } from './read-throughput.js';

/** The workloads compared: answered from memory, so the recorder's share is largest. */
const COMPARED = ['eth_blockNumber', 'eth_getBalance'];
const SCRAPE_INTERVAL_MS = 1000;

/** Scrapes `/metrics` of `baseUrl` every second until stopped; counts the scrapes. */
function scrapeEverySecond(baseUrl) {
  let scrapes = 0;
  let failures = 0;
  const timer = setInterval(() => {
    request(new URL('/metrics', baseUrl))
      .then(async ({ statusCode, body }) => {
        await body.text();
        if (statusCode === 200) scrapes++;
        else failures++;
      })
      .catch(() => failures++);
  }, SCRAPE_INTERVAL_MS);
  return {
    stop() {
      clearInterval(timer);
      return { scrapes, failures };
    },
  };
}

/**
 * Measures each compared read workload on a node without metrics and one with them, and their
 * ratio (on/off): 1.0 means metrics cost nothing measurable.
 * @param {import('../settings.js').BenchSettings} settings
 * @param {(message: string) => void} progress
 */
export async function measureMetricsOverhead(settings, progress) {
  progress('metrics overhead: starting a daemon without metrics and one with them');
  const off = await startNodeCli('1s');
  const on = await startNodeCli('1s', ['--metrics.enable', '--metrics.address', '127.0.0.1:0']);
  const nodes = [
    { name: 'metrics off', node: off },
    { name: 'metrics on', node: on },
  ].map(({ name, node }) => ({ name, node, rpc: connectRpc(node.url, 4) }));
  const scraper = scrapeEverySecond(on.endpoints.metrics);
  try {
    const all = readWorkloads([...DEV_ADDRESSES], undefined);
    const workloads = Object.fromEntries(COMPARED.map((name) => [name, all[name]]));
    // The second node of a pair measured slower by up to a fifth on this machine, whichever it
    // was, so each round is run in both orders.
    const rounds = [];
    for (let round = 0; round < 2 * settings.readRounds; round++) {
      const order = round % 2 === 0 ? nodes : [...nodes].reverse();
      rounds.push(
        await measureReadsAlternating(
          order.map(({ name, node, rpc }) => ({ name, rpc, url: node.url, pid: node.pid })),
          workloads,
          { ...settings, readRounds: 1 },
        ),
      );
    }
    const scraping = scraper.stop();
    const mean = (node, name, field) => {
      const values = rounds.map((round) => round[node][name]?.[field]);
      if (values.some((value) => typeof value !== 'number')) return null;
      return values.reduce((sum, value) => sum + value, 0) / values.length;
    };
    const figures = {};
    for (const name of COMPARED) {
      const without = mean('metrics off', name, 'requestsPerSecond');
      const with_ = mean('metrics on', name, 'requestsPerSecond');
      figures[name] = {
        offRequestsPerSecond: without,
        onRequestsPerSecond: with_,
        ratio: without && with_ !== null ? with_ / without : null,
        offP99Ms: mean('metrics off', name, 'p99Ms'),
        onP99Ms: mean('metrics on', name, 'p99Ms'),
      };
    }
    return { ...figures, scrapes: scraping.scrapes, scrapeFailures: scraping.failures };
  } finally {
    scraper.stop();
    await Promise.all(nodes.map(({ rpc }) => rpc.close()));
    await Promise.all([off.stop(), on.stop()]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const settings = readSettings(process.argv.slice(2));
  const progress = (message) => process.stderr.write(`[metrics overhead] ${message}\n`);
  console.log(JSON.stringify(await measureMetricsOverhead(settings, progress), null, 2));
}
