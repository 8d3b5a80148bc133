/** docs/operating.md's metric table is generated from the metrics deflow declares. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/report/metrics.js';

const COUNTERS = new Set(['jobs', 'spend', 'submitted', 'throttled', 'waits', 'workerJobs']);

export function metricsTable(): string {
  const rows = Object.entries(METRICS).map(
    ([key, m]) => `| \`${m.name}\` | ${COUNTERS.has(key) ? 'counter' : 'gauge'} | ${m.labels.length === 0 ? '—' : m.labels.join(', ')} | ${m.help} |`,
  );
  return ['| metric | type | labels | what |', '|---|---|---|---|', ...rows].join('\n');
}

describe('docs/operating.md', () => {
  it('lists every metric as run-metrics.ts declares it (regenerate the table from this test when it fails)', () => {
    const doc = readFileSync(new URL('../../docs/operating.md', import.meta.url), 'utf8');
    const table = /<!-- metrics-table:start[^>]*-->\n([\s\S]*?)\n<!-- metrics-table:end -->/.exec(doc)?.[1];
    expect(table, 'docs/operating.md has no metrics-table markers').toBeDefined();
    expect(table).toBe(metricsTable());
  });

  it('each counter is a Prometheus counter (named _total) and each gauge is not', () => {
    for (const [key, m] of Object.entries(METRICS)) expect(m.name.endsWith('_total'), m.name).toBe(COUNTERS.has(key));
  });
});
