/**
 * Reads a daemon's `/metrics` through the project's strict text-format parser and picks
 * samples out of it, so tests can compare two scrapes.
 */
import {
  parsePrometheusText,
  type MetricFamily,
  type Sample,
} from '../../src/client/prometheus-text.js';

export type Scrape = Map<string, MetricFamily>;

export async function scrape(metricsUrl: string): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', metricsUrl));
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

function matches(sample: Sample, labels: Record<string, string>): boolean {
  return Object.entries(labels).every(([key, value]) => sample.labels[key] === value);
}

/** Samples named `name` (a family or one of its parts, e.g. `x_count`) with these labels. */
export function samples(
  scraped: Scrape,
  name: string,
  labels: Record<string, string> = {},
): Sample[] {
  const family = scraped.get(name) ?? scraped.get(name.replace(/_(bucket|sum|count)$/, ''));
  return (family?.samples ?? []).filter((s) => s.name === name && matches(s, labels));
}

/** The sum of the matching samples' values (0 when there is none). */
export function value(scraped: Scrape, name: string, labels: Record<string, string> = {}): number {
  return samples(scraped, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/** How much a value moved from one scrape to the next. */
export function delta(
  before: Scrape,
  after: Scrape,
  name: string,
  labels: Record<string, string> = {},
): number {
  return value(after, name, labels) - value(before, name, labels);
}

/** Each series of a sample name as `name{k="v",...}` text, for comparing label sets. */
export function seriesOf(scraped: Scrape, name: string): string[] {
  return samples(scraped, name)
    .map((s) => `${name}${JSON.stringify(Object.entries(s.labels).sort())}`)
    .sort();
}
