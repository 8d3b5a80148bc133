import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunReportBuilder } from '../../src/report/files/run-report.js';
import { done, node, runStarted, sampleRun, submitted, T0 } from './run-events.js';

function buildSample(): RunReportBuilder {
  const builder = new RunReportBuilder();
  for (const event of sampleRun()) builder.handle(event);
  return builder;
}

describe('RunReportBuilder', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deflow-report-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('folds a run into versioned top-level fields and totals', () => {
    const report = buildSample().toJSON();
    expect(report).toMatchObject({
      format_version: 1,
      run_id: 'run-1',
      workflow: 'podcast.yaml',
      workflow_name: 'Podcast',
      status: 'failed',
      exit_code: 1,
      started_at: '2026-01-02T03:04:05.000Z',
      finished_at: '2026-01-02T03:04:07.500Z',
      duration_ms: 2500,
      resumed: false,
      resume_command: null,
      quote: { exact: 0.125, estimated: 0.125, point: 0.25, low: 0.225, high: 0.275, unknown_items: 0, price_requests: 2, balance: 10, max_cost: 1, verdict: 'within' },
      warnings: ['speech model is slow today'],
      invocations: [{ index: 1, started_at: '2026-01-02T03:04:05.000Z', finished_at: '2026-01-02T03:04:07.500Z', status: 'failed', cost_actual: 0.1875, current: true }],
    });
    expect(report.totals).toEqual({
      items: 6,
      done: 3,
      cached: 1,
      failed: 1,
      unsaved: 0,
      timed_out: 0,
      skipped: 1,
      unknown: 1,
      pending: 0,
      deferred: 0,
      invalid: 0,
      blocked: 1,
      cost_quoted: 0.25,
      cost_actual: 0.1875,
    });
  });

  it('keeps per-step counts and costs, items in index order', () => {
    const [transcribe, speak] = buildSample().toJSON().steps;
    expect(transcribe).toMatchObject({
      id: 'transcribe',
      task: 'audio-to-text',
      cost_quoted: 0.125,
      cost_actual: 0.0625,
      started_at: '2026-01-02T03:04:05.020Z',
      finished_at: '2026-01-02T03:04:06.200Z',
      counts: { items: 3, done: 2, cached: 1, failed: 1, unsaved: 0, skipped: 0, unknown: 0, pending: 0, deferred: 0, invalid: 0, blocked: 0 },
    });
    expect(speak?.counts).toEqual({ items: 3, done: 1, cached: 0, failed: 0, unsaved: 0, timed_out: 0, skipped: 1, unknown: 1, pending: 0, deferred: 0, invalid: 0, blocked: 1 });
    expect(transcribe?.items.map((i) => i.index)).toEqual([0, 1, 2]);
  });

  it('records each item with status, request id, costs, timings, outputs, error and attempts', () => {
    const [transcribe, speak] = buildSample().toJSON().steps;
    expect(transcribe?.items[0]).toEqual({
      index: 0,
      key: 'a.mp3',
      status: 'done',
      cached: false,
      request_id: 'req-t0',
      cost_quoted: 0.0625,
      cost_actual: 0.0625,
      started_at: '2026-01-02T03:04:05.100Z',
      finished_at: '2026-01-02T03:04:06.100Z',
      duration_ms: 1000,
      outputs: ['out/transcribe/a.txt'],
      error: null,
      skip_reason: null,
      skip_kind: null,
      adopted: false,
      attempts: 1,
    });
    expect(transcribe?.items[1]).toMatchObject({
      status: 'failed',
      request_id: 'req-t1',
      cost_actual: null,
      duration_ms: 1090,
      error: { code: 'E_JOB_FAILED', message: 'the job failed', job_error_code: 'WORKER_ERROR', reason: 'PROCESSING_FAILED', retryable: false },
    });
    expect(transcribe?.items[2]).toMatchObject({ status: 'done', cached: true, cost_actual: 0, cost_quoted: null, attempts: 0, request_id: null });
    expect(speak?.items[0]).toMatchObject({ status: 'done', request_id: 'req-s0b', attempts: 2, duration_ms: 1000 });
    expect(speak?.items[1]).toMatchObject({ status: 'skipped', skip_reason: 'upstream transcribe[1] failed', skip_kind: 'upstream', error: null });
    expect(speak?.items[2]).toMatchObject({
      status: 'unknown',
      request_id: null,
      error: { code: 'E_JOB_UNKNOWN', message: 'outcome unknown: connection reset while submitting' },
    });
  });

  it('reports items never reached as pending and a run without run-finished as incomplete', () => {
    const builder = new RunReportBuilder();
    builder.handle(runStarted([{ id: 'only', task: 'text-to-image', items: 3 }]));
    builder.handle(submitted(node('only', 0, 'x'), T0 + 5, 'req-x', 0.5));
    const report = builder.toJSON();
    expect(report.status).toBe('incomplete');
    expect(report.exit_code).toBeNull();
    expect(report.totals).toMatchObject({ items: 3, done: 0, pending: 3, cost_quoted: 0.5, cost_actual: 0 });
    expect(report.steps[0]?.items.map((i) => i.status)).toEqual(['running', 'pending', 'pending']);
    expect(report.steps[0]?.items[1]?.key).toBeNull();
  });

  it('accepts items beyond the count run-started announced', () => {
    const builder = new RunReportBuilder();
    builder.handle(runStarted([{ id: 'grow', task: 'text-to-image', items: 1 }]));
    builder.handle(done(node('grow', 40, 'late'), T0 + 9, { cost: 0.5, startedAt: T0 }));
    const report = builder.toJSON();
    expect(report.totals).toMatchObject({ items: 41, done: 1, pending: 40, cost_actual: 0.5 });
    expect(report.steps[0]?.items[40]).toMatchObject({ key: 'late', status: 'done' });
  });

  it('writes the same JSON atomically and leaves no .part file', async () => {
    const builder = buildSample();
    const path = join(dir, 'run.json');
    await builder.writeReport(path);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(builder.toJSON());
    expect(await readdir(dir)).toEqual(['run.json']);
  });

  it('creates a missing folder for the report', async () => {
    const path = join(dir, 'missing', 'deeper', 'run.json');
    await buildSample().writeReport(path);
    expect(JSON.parse(await readFile(path, 'utf8')).format_version).toBe(1);
  });

  it('fails with E_REPORT_WRITE naming the path when the folder cannot be created', async () => {
    await writeFile(join(dir, 'a-file'), 'not a folder');
    const path = join(dir, 'a-file', 'run.json');
    await expect(buildSample().writeReport(path)).rejects.toMatchObject({ code: 'E_REPORT_WRITE', message: expect.stringContaining(path) });
  });
});
