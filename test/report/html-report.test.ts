import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../src/report/event-log.js';
import { renderHtmlReport } from '../../src/report/html-report.js';
import { buildTimeline } from '../../src/report/timeline-model.js';

const T0 = Date.UTC(2026, 10, 26, 23, 0, 0);

function node(step: string, index: number): { step: string; index: number; key: string } {
  return { step, index, key: `item-${index}` };
}

/** The event log of a run of `n` jobs of one step, one job every 10 ms, 1 in 100 failing. */
function runOf(n: number, extra: LoggedEvent[] = []): LoggedEvent[] {
  const events: LoggedEvent[] = [
    { type: 'version', format: '1.1', format_version: 1, tool: 'deflow' },
    { type: 'run-started', ts: T0, run_id: 'r1', workflow: 'w.yaml', workflow_name: 'w', resumed: false, steps: [{ id: 'embed', task: 'text.embed', items: n }] },
  ];
  for (let i = 0; i < n; i++) {
    const ts = T0 + i * 10;
    events.push({ type: 'item-submitted', ts, node: node('embed', i), request_id: `req-${i}`, attempt: 1, quoted_cost: 0.000001 });
    events.push({ type: 'item-downloading', ts: ts + 1500, node: node('embed', i), request_id: `req-${i}` });
    if (i % 100 === 99) events.push({ type: 'item-failed', ts: ts + 1600, node: node('embed', i), request_id: `req-${i}`, error: { code: 'E_JOB_FAILED', message: `job req-${i} failed <b>`, reason: 'TIMEOUT' }, started_at: ts });
    else events.push({ type: 'item-done', ts: ts + 1600, node: node('embed', i), request_id: `req-${i}`, cost: 0.000001, quoted_cost: 0.000001, cached: false, outputs: [], started_at: ts });
  }
  events.push(...extra);
  events.push({ type: 'run-finished', ts: T0 + n * 10 + 2000, run_id: 'r1', status: 'failed', exit_code: 1, counts: {}, spent: 0, quoted: null, resume_command: null });
  return events;
}

describe('the HTML report page', () => {
  it('marks each 429 and each window wait on its pool lane', () => {
    const html = renderHtmlReport(
      buildTimeline(
        runOf(3, [
          { type: 'rate-wait', ts: T0 + 5, pool: 'embeddings', wait_ms: 20 },
          { type: 'throttled', ts: T0 + 12, pool: 'embeddings', wait_ms: 1000 },
          { type: 'throttled', ts: T0 + 14, pool: 'audio/speech (Kokoro)', wait_ms: 3000 },
        ]),
      ),
    );
    expect(html.match(/class="marker throttled"/g)).toHaveLength(2);
    expect(html.match(/class="marker rate-wait"/g)).toHaveLength(1);
    expect(html).toContain('data-pool="audio/speech (Kokoro)"');
    expect(html).toContain('audio/speech (Kokoro): 429 at');
    expect(html).toMatch(/data-total="429s"><b>2<\/b>/);
  });

  it('draws a lane per job up to 300 jobs, and one aggregated lane past it', () => {
    expect(renderHtmlReport(buildTimeline(runOf(300)))).toContain('data-mode="jobs"');
    const big = renderHtmlReport(buildTimeline(runOf(301)));
    expect(big).toContain('data-mode="aggregate"');
    expect(big).not.toContain('class="lane job"');
  });

  it('keeps a 10,000-job run under 5 MB, lists failures escaped with their reasons, and fetches nothing', () => {
    const html = renderHtmlReport(buildTimeline(runOf(10_000)));
    expect(Buffer.byteLength(html)).toBeLessThan(5 * 1024 * 1024);
    expect(html).toContain('Failures (100)');
    expect(html).toContain('job req-99 failed &lt;b&gt; <span class="reason">(TIMEOUT)</span>');
    expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });
});
