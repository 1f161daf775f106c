// Log-scale latency histogram: buckets 1 % wide from 1 µs to about 30 s, so percentiles are
// exact to 1 % whatever the latency. Workers fill one each and the parent merges them; no
// per-request samples are kept.
const BUCKETS_PER_E = 100;
const BUCKETS = 1_730;

/** A new, empty histogram (an array of counts, transferable over IPC as JSON). */
export function emptyHistogram() {
  return new Array(BUCKETS).fill(0);
}

/** Records one latency in milliseconds. @param {number[]} histogram @param {number} millis */
export function record(histogram, millis) {
  const micros = Math.max(1, millis * 1000);
  histogram[Math.min(BUCKETS - 1, Math.floor(Math.log(micros) * BUCKETS_PER_E))] += 1;
}

/** Adds `other` into `into`. @param {number[]} into @param {number[]} other */
export function merge(into, other) {
  for (let i = 0; i < BUCKETS; i += 1) into[i] += other[i];
}

/**
 * The latency in milliseconds below which `fraction` of the recorded requests fall (upper bucket
 * edge), or null for an empty histogram.
 * @param {number[]} histogram @param {number} fraction
 */
export function percentile(histogram, fraction) {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(total * fraction);
  let seen = 0;
  for (let i = 0; i < BUCKETS; i += 1) {
    seen += histogram[i];
    if (seen >= rank) return Math.exp((i + 1) / BUCKETS_PER_E) / 1000;
  }
  return Math.exp(BUCKETS / BUCKETS_PER_E) / 1000;
}
