import { describe, expect, it } from 'vitest';
import { NdjsonRenderer } from '../../src/report/terminal/ndjson-renderer.js';
import { memoryStream, sampleRun } from './run-events.js';

describe('NdjsonRenderer', () => {
  it('writes the version line first, then one JSON line per event', () => {
    const stdout = memoryStream();
    const renderer = new NdjsonRenderer(stdout);
    const events = sampleRun();
    for (const event of events) renderer.handle(event);
    const lines = stdout.text().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('{"type":"version","format":"1.2","format_version":1,"tool":"deflow"}');
    expect(lines).toHaveLength(events.length + 1);
    expect(lines.slice(1).map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(events.map((e) => e.type));
  });

  it('uses snake_case keys at every depth and keeps kebab-case type names', () => {
    const stdout = memoryStream();
    const renderer = new NdjsonRenderer(stdout);
    for (const event of sampleRun()) renderer.handle(event);
    const lines = stdout.text().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const failure = lines.find((line) => line['type'] === 'item-failed');
    expect(failure).toEqual({
      type: 'item-failed',
      ts: Date.UTC(2026, 0, 2, 3, 4, 5) + 1200,
      node: { step: 'transcribe', index: 1, key: 'b.mp3' },
      request_id: 'req-t1',
      error: { code: 'E_JOB_FAILED', message: 'the job failed', job_error_code: 'WORKER_ERROR', reason: 'PROCESSING_FAILED', retryable: false },
      started_at: Date.UTC(2026, 0, 2, 3, 4, 5) + 110,
    });
    const finished = lines.at(-1);
    expect(Object.keys(finished ?? {})).toEqual(['type', 'ts', 'run_id', 'status', 'exit_code', 'counts', 'spent', 'quoted', 'resume_command']);
    expect(stdout.text()).not.toMatch(/"[a-z]+[A-Z][A-Za-z]*":/);
  });
});
