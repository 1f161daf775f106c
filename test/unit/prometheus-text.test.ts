import { describe, expect, it } from '@jest/globals';
import { quantileBetween } from '../../src/client/node-metrics.js';
import { parsePrometheusText } from '../../src/client/prometheus-text.js';

const VALID = `# HELP calls_total Calls.
# TYPE calls_total counter
calls_total{method="eth_call",outcome="success"} 3
calls_total{method="a\\"b\\\\c\\nd",outcome="x"} 1e3
# TYPE latency_seconds histogram
latency_seconds_bucket{le="0.1"} 1
latency_seconds_bucket{le="+Inf"} 2
latency_seconds_sum 0.35
latency_seconds_count 2
# TYPE up gauge
up NaN 1700000000000
`;

describe('Prometheus text parser', () => {
  it('reads families, labels with escapes, special values and timestamps', () => {
    const families = parsePrometheusText(VALID);
    expect([...families.keys()]).toEqual(['calls_total', 'latency_seconds', 'up']);
    const calls = families.get('calls_total')!;
    expect(calls).toMatchObject({ type: 'counter', help: 'Calls.' });
    expect(calls.samples[1]).toEqual({
      name: 'calls_total',
      labels: { method: 'a"b\\c\nd', outcome: 'x' },
      value: 1000,
    });
    expect(families.get('latency_seconds')!.samples.map((s) => s.name)).toEqual([
      'latency_seconds_bucket',
      'latency_seconds_bucket',
      'latency_seconds_sum',
      'latency_seconds_count',
    ]);
    expect(families.get('latency_seconds')!.samples[1].labels.le).toBe('+Inf');
    expect(families.get('up')!.samples[0].value).toBeNaN();
  });

  it.each([
    ['a sample without # TYPE', 'x 1\n', 'line 1: sample x has no # TYPE line before it'],
    [
      'a repeated series',
      '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n',
      'line 3: series x{a="1"} given twice',
    ],
    [
      'a name outside the family',
      '# TYPE x counter\nx_bucket 1\n',
      'line 2: sample x_bucket has no # TYPE',
    ],
    [
      'a bucket without le',
      '# TYPE h histogram\nh_bucket 1\n',
      'line 2: histogram bucket h_bucket without an "le" label',
    ],
    ['a bad escape', '# TYPE x gauge\nx{a="\\t"} 1\n', 'line 2: bad escape "\\t" in label "a"'],
    ['an unquoted label', '# TYPE x gauge\nx{a=1} 1\n', 'line 2: label "a" not quoted'],
    ['a label given twice', '# TYPE x gauge\nx{a="1",a="2"} 1\n', 'line 2: label "a" given twice'],
    ['a bad number', '# TYPE x gauge\nx 1,5\n', 'line 2: "1,5" is not a number'],
    ['no value', '# TYPE x gauge\nx\n', 'line 2: expected a value'],
    ['an unknown type', '# TYPE x meter\n', 'line 1: unknown type "meter" of x'],
    ['a bad metric name', '# TYPE 1x gauge\n', 'line 1: bad metric name "1x"'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parsePrometheusText(text)).toThrow(message);
  });
});

describe('quantile between two cumulative histograms', () => {
  const at = (entries: Array<[number, number]>) => new Map(entries);

  it('interpolates within the bucket of the rank, over the calls counted in between', () => {
    const before = at([
      [0.001, 10],
      [0.01, 10],
      [Infinity, 10],
    ]);
    const after = at([
      [0.001, 10],
      [0.01, 110],
      [Infinity, 110],
    ]);
    // All 100 new calls lie in (0.001, 0.01]; the 99th is 99% of the way through it.
    expect(quantileBetween(before, after, 0.99)).toBeCloseTo(0.001 + 0.009 * 0.99, 9);
  });

  it('gives the largest finite bound for calls past it, and nothing without calls', () => {
    expect(
      quantileBetween(
        at([]),
        at([
          [0.5, 0],
          [Infinity, 4],
        ]),
        0.99,
      ),
    ).toBe(0.5);
    expect(quantileBetween(at([[1, 3]]), at([[1, 3]]), 0.99)).toBeUndefined();
  });
});
