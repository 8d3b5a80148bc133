import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../src/report/terminal/event-log.js';
import { renderHtmlReport } from '../../src/report/html/html-report.js';
import { buildTimeline } from '../../src/report/html/timeline-model.js';

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

  it('draws a resumed run once: a crashed first session, the second marked on the axis, earlier jobs not counted twice', () => {
    const start = (ts: number): LoggedEvent => ({ type: 'run-started', ts, run_id: 'r1', workflow: 'w.yaml', workflow_name: 'w', resumed: ts !== T0, steps: [{ id: 'embed', task: 'text.embed', items: 2 }] });
    const model = buildTimeline([
      start(T0),
      { type: 'item-submitted', ts: T0 + 10, node: node('embed', 0), request_id: 'req-0', attempt: 1, quoted_cost: null },
      { type: 'item-done', ts: T0 + 900, node: node('embed', 0), request_id: 'req-0', cost: 0.5, quoted_cost: null, cached: false, outputs: [], started_at: T0 + 10 },
      // The process was killed here; a second session resumes the run.
      start(T0 + 5000),
      { type: 'item-done', ts: T0 + 900, node: node('embed', 0), request_id: 'req-0', cost: 0.5, quoted_cost: null, cached: false, earlier: true, outputs: [], started_at: T0 + 900 },
      { type: 'item-submitted', ts: T0 + 5010, node: node('embed', 1), request_id: 'req-1', attempt: 1, quoted_cost: null },
      { type: 'item-done', ts: T0 + 5900, node: node('embed', 1), request_id: 'req-1', cost: 0.25, quoted_cost: null, cached: false, outputs: [], started_at: T0 + 5010 },
      { type: 'run-finished', ts: T0 + 6000, run_id: 'r1', status: 'done', exit_code: 0, counts: {}, spent: 0.75, quoted: null, resume_command: null },
    ]);
    expect(model.sessions.map((s) => s.status)).toEqual(['crashed', 'done']);
    expect(model.steps[0]?.costActual).toBe(0.75);
    const html = renderHtmlReport(model);
    expect(html.match(/class="lane job"/g)).toHaveLength(2);
    expect(html.match(/class="session"/g)).toHaveLength(1);
    expect(html).toContain(', 2 sessions');
    expect(html).toMatch(/data-total="spent"><b>\$0\.7500<\/b>/);
  });

  it('an input left out in two sessions is listed once and never drawn as queued (issue 27.11)', () => {
    const skip = (ts: number, index: number): LoggedEvent => ({ type: 'item-skipped', ts, node: node('embed', index), reason: `item ${index}: its file is corrupt`, kind: 'invalid' });
    const session = (start: number, runId: string): LoggedEvent[] => [
      { type: 'run-started', ts: start, run_id: runId, workflow: 'w.yaml', workflow_name: 'w', resumed: start !== T0, steps: [{ id: 'embed', task: 'text.embed', items: 6 }] },
      { type: 'quoted', ts: start + 5, total: { point: 0, low: 0, high: 0, unknown_items: 0 }, verdict: 'no-budget' },
      ...[2, 3, 4, 5].map((i) => skip(start + 6, i)),
    ];
    const events: LoggedEvent[] = [
      { type: 'version', format: '1.1', format_version: 1, tool: 'deflow' },
      ...session(T0, 'r1'),
      { type: 'item-submitted', ts: T0 + 10, node: node('embed', 0), request_id: 'req-0', attempt: 1 },
      { type: 'run-finished', ts: T0 + 60_000, run_id: 'r1', status: 'interrupted', exit_code: 130, counts: {}, spent: 0, quoted: null, resume_command: null },
      ...session(T0 + 120_000, 'r1'),
      { type: 'item-done', ts: T0 + 121_000, node: node('embed', 0), request_id: 'req-0', cost: 0.000001, cached: false, outputs: [], started_at: T0 + 10 },
      { type: 'run-finished', ts: T0 + 122_000, run_id: 'r1', status: 'left-out', exit_code: 6, counts: {}, spent: 0.000001, quoted: null, resume_command: null },
    ];
    const model = buildTimeline(events);
    expect(model.failures.map((f) => [f.index, f.outcome])).toEqual([
      [2, 'skipped'],
      [3, 'skipped'],
      [4, 'skipped'],
      [5, 'skipped'],
    ]);
    const left = model.steps[0]!.jobs.get(2)!;
    expect([left.queued, left.end]).toEqual([T0 + 6, T0 + 6]);
    expect(renderHtmlReport(model)).toContain('<h2>Failures (4)</h2>');
  });
});
