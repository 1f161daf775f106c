// Summaries of a benchmark's repeated measurements.

/** The mean of `values` (numbers), or null when one of them is missing. */
export function mean(values) {
  if (values.some((value) => value === null || value === undefined)) return null;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The median of `values`: the middle one, or the mean of the middle two of an even count. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
