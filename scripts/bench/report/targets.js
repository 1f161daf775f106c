// The benchmark's targets: each picks a figure of this node (and of anvil for ratios) out of the
// results and says whether it is met. A figure this node failed to produce is a MISS; a target
// that cannot be evaluated because a node was skipped or anvil's figure is missing is 'n/a'.
import { burstP99 } from './table.js';

/**
 * @typedef {object} TargetOutcome
 * @property {string} name
 * @property {string} goal human-readable target
 * @property {number|null} value the ratio or absolute figure compared
 * @property {'PASS'|'MISS'|'n/a'} verdict
 */

/**
 * @param {Record<string, object>} results
 * @param {number|undefined} reference anvil's figure (anything but undefined when none is needed)
 * @param {number|null} value @param {boolean} met
 */
function judge(results, reference, value, met) {
  if (!results['node-cli'] || reference === undefined) return 'n/a';
  if (value === null) return 'MISS';
  return met ? 'PASS' : 'MISS';
}

const readRate = (name) => (suite) => suite?.reads?.[name]?.requestsPerSecond;
const commitRate = (kind) => (suite) => suite?.transfers?.[kind]?.perSecond;

/** Ratio node/anvil of a higher-is-better figure, judged against `minimum`. */
function atLeastRatio(name, pick, minimum) {
  return (results) => {
    const mine = pick(results['node-cli']);
    const theirs = pick(results.anvil);
    const value = mine !== undefined && theirs ? mine / theirs : null;
    return {
      name,
      goal: `node/anvil >= ${minimum.toFixed(1)}x`,
      value,
      verdict: judge(results, theirs, value, value >= minimum),
    };
  };
}

/** Absolute figure of this node, judged against `limit` (lower is better). */
function below(name, pick, limit, unit) {
  return (results) => {
    const value = pick(results['node-cli']) ?? null;
    return {
      name,
      goal: `< ${limit} ${unit}`,
      value,
      verdict: judge(results, 0, value, value < limit),
    };
  };
}

/** A ratio node/anvil of two different figures (`mine` of this node, `theirs` of anvil). */
function ratioOf(name, mine, theirs, goal, met) {
  return (results) => {
    const a = mine(results['node-cli']);
    const b = theirs(results.anvil);
    const value = a !== undefined && b ? a / b : null;
    return { name, goal, value, verdict: judge(results, b, value, value !== null && met(value)) };
  };
}

/** This node's storage transfer against the raw disk in the same run, judged against 0.5. */
function storageRatio(name, part, what) {
  return (results) => {
    const value = results['node-cli']?.storage?.[part]?.ratio ?? null;
    return {
      name,
      goal: `${what} >= 0.5x`,
      value,
      verdict: judge(results, 0, value, value >= 0.5),
    };
  };
}

const burstFigure = (kind, field) => (suite) => suite?.burst?.[kind]?.[field];

const TARGETS = [
  atLeastRatio('eth_blockNumber req/s', readRate('eth_blockNumber'), 1.0),
  atLeastRatio('eth_getBalance req/s', readRate('eth_getBalance'), 1.0),
  atLeastRatio('eth_call balanceOf req/s', readRate('eth_call'), 0.5),
  atLeastRatio('eth_call balanceOf, no request repeated', readRate('eth_call_distinct'), 0.5),
  atLeastRatio('value transfers/s (block time 1 s)', commitRate('value'), 0.5),
  atLeastRatio('ERC-20 transfers/s (block time 1 s)', commitRate('token'), 0.5),
  ratioOf(
    'burst admission (value) vs anvil committed',
    burstFigure('value', 'acceptedPerSecond'),
    burstFigure('value', 'committedPerSecond'),
    'node accepted/anvil committed >= 3.0x',
    (value) => value >= 3,
  ),
  atLeastRatio('burst value transfers committed/s', burstFigure('value', 'committedPerSecond'), 1),
  atLeastRatio('burst ERC-20 transfers committed/s', burstFigure('token', 'committedPerSecond'), 1),
  // Burst by burst, the worse ratio: anvil's own p99 varies from 1 to 130 ms from run to run
  // here, and the worse p99 of each node compared with the other's hid a burst of ours at 3x.
  (results) => {
    const ratios = ['value', 'token'].map((kind) => {
      const mine = burstFigure(kind, 'blockNumberLatency')(results['node-cli'])?.p99Ms;
      const theirs = burstFigure(kind, 'blockNumberLatency')(results.anvil)?.p99Ms;
      return mine !== undefined && theirs ? mine / theirs : null;
    });
    const value = ratios.includes(null) ? null : Math.max(...ratios);
    const theirs = burstP99(results.anvil?.burst);
    return {
      name: 'eth_blockNumber p99 during the bursts (worse burst)',
      goal: 'node/anvil <= 2.0x',
      value,
      verdict: judge(results, theirs, value, value !== null && value <= 2),
    };
  },
  (results) => {
    const mine = results['node-cli']?.logs?.medianMs;
    const theirs = results.anvil?.logs?.medianMs;
    const value = mine !== undefined && theirs ? mine / theirs : null;
    return {
      name: 'eth_getLogs median latency',
      goal: 'node/anvil <= 2.0x',
      value,
      verdict: judge(results, theirs, value, value <= 2),
    };
  },
  // Issue #14: the storage layer at least half the raw speed of the same disk, both ways.
  storageRatio('storage upload of 256 MiB vs dd conv=fsync', 'write', 'upload/dd'),
  storageRatio('storage cold download of 256 MiB vs cold cat', 'readCold', 'download/cat'),
  below(
    'cold start (daemon start --foreground)',
    (suite) => suite?.coldStart?.cliFreshDataDir?.medianMs,
    500,
    'ms',
  ),
  below(
    'restart on 10 000 blocks (daemon start to first answer)',
    (suite) => suite?.restart?.firstAnswerMs,
    500,
    'ms',
  ),
  below(
    'process gone after its "stopped" line',
    (suite) => suite?.restart?.goneAfterStoppedMs,
    500,
    'ms',
  ),
  // Issue #17: at most 150 MiB after the benchmark, and flat within 10 % over the soak.
  below('resident memory after the run', (suite) => suite?.memory?.afterRun?.total, 150, 'MiB'),
  below(
    'resident memory at rest after the run (40 s)',
    (suite) => suite?.memory?.atRest?.total,
    150,
    'MiB',
  ),
  below('resident memory after the 4 000 burst', (suite) => suite?.burst?.residentMiB, 150, 'MiB'),
  (results) => {
    const soak = results['node-cli']?.soak;
    const value = soak?.resident?.driftPercent ?? null;
    return {
      name: 'resident memory drift over the soak (opt-in)',
      goal: 'within 10 %',
      value,
      verdict: soak === undefined ? 'n/a' : judge(results, 0, value, Math.abs(value) <= 10),
    };
  },
  below(
    'slowest eth_blockNumber under the stall probes',
    (suite) =>
      suite?.stallProbes?.probes && Math.max(...suite.stallProbes.probes.map((p) => p.maxMs)),
    100,
    'ms',
  ),
  (results) => {
    const overhead = results['node-cli']?.metricsOverhead;
    const ratios = ['eth_blockNumber', 'eth_getBalance'].map((name) => overhead?.[name]?.ratio);
    const value = ratios.every((ratio) => typeof ratio === 'number') ? Math.min(...ratios) : null;
    return {
      name: 'read req/s with metrics on (worst of eth_blockNumber, eth_getBalance)',
      goal: 'on/off >= 0.95x',
      value,
      verdict: judge(results, 0, value, value >= 0.95),
    };
  },
];

/** Evaluates every target. @param {Record<string, object>} results per node @returns {TargetOutcome[]} */
export function evaluateTargets(results) {
  return TARGETS.map((target) => target(results));
}
