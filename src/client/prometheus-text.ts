/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for `node top` and
 * the tests of `/metrics`. Strict means a scrape Prometheus would refuse, or would read
 * differently, is refused here with the line and what is wrong: a sample before its family's
 * `# TYPE`, a name outside the family's suffixes, a repeated series, a bad escape or number.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name, e.g. `x_bucket` in the family `x`. */
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

export class PrometheusTextError extends Error {
  constructor(line: number, problem: string) {
    super(`metrics text, line ${line}: ${problem}`);
    this.name = 'PrometheusTextError';
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
/** The sample names a family of each type may hold, as suffixes of the family name. */
const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/**
 * A value as Prometheus reads it (Go's `ParseFloat`): decimals, and `NaN` and `Inf` in any case
 * (prom-client writes `Nan`).
 */
function parseNumber(text: string, line: number): number {
  const special = /^([-+]?)(inf|infinity|nan)$/i.exec(text);
  if (special !== null) {
    if (special[2].toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
    throw new PrometheusTextError(line, `"${text}" is not a number`);
  }
  return Number(text);
}

/** Reads `{a="1",b="x\"y"}` from `text` at `start` (the `{`); returns labels and the end. */
function parseLabels(
  text: string,
  start: number,
  line: number,
): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let at = start + 1;
  for (;;) {
    if (text[at] === '}') return { labels, end: at + 1 };
    const eq = text.indexOf('=', at);
    if (eq < 0) throw new PrometheusTextError(line, 'label without "="');
    const name = text.slice(at, eq).trim();
    if (!LABEL_NAME.test(name)) throw new PrometheusTextError(line, `bad label name "${name}"`);
    if (name in labels) throw new PrometheusTextError(line, `label "${name}" given twice`);
    if (text[eq + 1] !== '"') throw new PrometheusTextError(line, `label "${name}" not quoted`);
    let value = '';
    let i = eq + 2;
    for (; i < text.length && text[i] !== '"'; i++) {
      if (text[i] !== '\\') {
        value += text[i];
        continue;
      }
      const escaped = text[++i];
      if (escaped === 'n') value += '\n';
      else if (escaped === '\\' || escaped === '"') value += escaped;
      else throw new PrometheusTextError(line, `bad escape "\\${escaped}" in label "${name}"`);
    }
    if (i >= text.length) throw new PrometheusTextError(line, `label "${name}" not closed`);
    labels[name] = value;
    at = i + 1;
    if (text[at] === ',') at++;
    else if (text[at] !== '}') throw new PrometheusTextError(line, 'expected "," or "}"');
  }
}

function seriesKey(name: string, labels: Readonly<Record<string, string>>): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((key) => `${key}=${JSON.stringify(labels[key])}`);
  return `${name}{${pairs.join(',')}}`;
}

/** Parses a whole scrape; throws {@link PrometheusTextError} at the first problem. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  /** Which family each sample name belongs to, from the declared types. */
  const owners = new Map<string, MetricFamily>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw);
      if (match === null) return;
      const [, keyword, name, rest = ''] = match;
      if (!METRIC_NAME.test(name)) throw new PrometheusTextError(line, `bad metric name "${name}"`);
      const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      if (keyword === 'HELP') {
        family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      } else {
        if (!TYPES.includes(rest.trim() as MetricType)) {
          throw new PrometheusTextError(line, `unknown type "${rest.trim()}" of ${name}`);
        }
        if (families.has(name) && family.samples.length > 0) {
          throw new PrometheusTextError(line, `# TYPE of ${name} after its samples`);
        }
        family.type = rest.trim() as MetricType;
        for (const suffix of SUFFIXES[family.type]) owners.set(`${name}${suffix}`, family);
      }
      families.set(name, family);
      return;
    }
    const nameEnd = raw.search(/[{\s]/);
    const name = nameEnd < 0 ? raw : raw.slice(0, nameEnd);
    if (!METRIC_NAME.test(name)) throw new PrometheusTextError(line, `bad metric name "${name}"`);
    let labels: Record<string, string> = {};
    let rest = raw.slice(name.length);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(raw, name.length, line);
      labels = parsed.labels;
      rest = raw.slice(parsed.end);
    }
    const fields = rest.trim().split(/\s+/);
    if (fields.length < 1 || fields.length > 2 || fields[0] === '') {
      throw new PrometheusTextError(
        line,
        `expected a value (and at most a timestamp) after ${name}`,
      );
    }
    const value = parseNumber(fields[0], line);
    if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) {
      throw new PrometheusTextError(line, `bad timestamp "${fields[1]}"`);
    }
    const family = owners.get(name);
    if (family === undefined) {
      throw new PrometheusTextError(line, `sample ${name} has no # TYPE line before it`);
    }
    if (family.type === 'histogram' && name.endsWith('_bucket') && labels.le === undefined) {
      throw new PrometheusTextError(line, `histogram bucket ${name} without an "le" label`);
    }
    const key = seriesKey(name, labels);
    if (seen.has(key)) throw new PrometheusTextError(line, `series ${key} given twice`);
    seen.add(key);
    family.samples.push({ name, labels, value });
  });
  return families;
}
