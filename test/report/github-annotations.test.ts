import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/common/error-codes.js';
import { escapeCommandData, escapeCommandProperty, formatWorkflowCommand } from '../../src/common/workflow-command.js';
import { renderAnnotations } from '../../src/report/ci/github-annotations.js';
import { RunReportBuilder } from '../../src/report/files/run-report.js';
import { failed, node, runFinished, runStarted, sampleRun, T0, unknown } from './run-events.js';

describe('workflow command escaping (as @actions/core command.ts)', () => {
  it('escapes data: % CR LF, but not : or ,', () => {
    expect(escapeCommandData('a%b\r\n:,')).toBe('a%25b%0D%0A:,');
  });

  it('escapes properties: % CR LF : ,', () => {
    expect(escapeCommandProperty('a%b\r\n:,')).toBe('a%25b%0D%0A%3A%2C');
  });

  it('escapes % first so existing escapes are not decoded by the runner', () => {
    expect(escapeCommandData('%0A')).toBe('%250A');
  });

  it('formats a command with escaped properties and message, omitting empty properties', () => {
    expect(formatWorkflowCommand('error', { title: 'E_X:1,2', file: '', line: undefined }, 'a%b\r\n:,')).toBe(
      '::error title=E_X%3A1%2C2::a%25b%0D%0A:,',
    );
    expect(formatWorkflowCommand('notice', {}, 'hi')).toBe('::notice::hi');
  });
});

describe('renderAnnotations', () => {
  it('emits one ::error per failed or unknown item, titled by the error code', () => {
    const builder = new RunReportBuilder();
    for (const event of sampleRun()) builder.handle(event);
    expect(renderAnnotations(builder)).toEqual([
      '::error title=E_JOB_FAILED::transcribe[1] b.mp3: the job failed (job error WORKER_ERROR, reason PROCESSING_FAILED, request req-t1)',
      '::error title=E_JOB_UNKNOWN::speak[2] c.mp3: outcome unknown: connection reset while submitting',
    ]);
  });

  it('escapes messages from the service', () => {
    const builder = new RunReportBuilder();
    builder.handle(runStarted([{ id: 's', task: 'text-to-image', items: 1 }]));
    // A code read back from a file another version wrote is not checked: the title escapes it all the same.
    builder.handle(failed(node('s', 0, 'k'), T0, { code: 'E_A,B:C' as ErrorCode, message: 'line1\nline2 100%' }));
    expect(renderAnnotations(builder)).toEqual(['::error title=E_A%2CB%3AC::s[0] k: line1%0Aline2 100%25']);
  });

  it('stops at 10 errors and adds one notice with the number left out', () => {
    const builder = new RunReportBuilder();
    builder.handle(runStarted([{ id: 's', task: 'text-to-image', items: 25 }]));
    for (let i = 0; i < 20; i++) builder.handle(failed(node('s', i, `k${i}`), T0 + i, { code: 'E_JOB_FAILED', message: `m${i}` }));
    for (let i = 20; i < 25; i++) builder.handle(unknown(node('s', i, `k${i}`), T0 + i, 'lost'));
    builder.handle(runFinished({ total: 25, done: 0, cached: 0, failed: 20, skipped: 0, unknown: 5, pending: 0 }, { ts: T0 + 99 }));
    const lines = renderAnnotations(builder);
    expect(lines).toHaveLength(11);
    expect(lines.slice(0, 10).every((line) => line.startsWith('::error title=E_JOB_FAILED::s['))).toBe(true);
    expect(lines[10]).toBe('::notice::15 more failed or unknown items not annotated; see the step summary or the JSON report');
  });

  it('emits nothing for a clean run', () => {
    const builder = new RunReportBuilder();
    builder.handle(runStarted([{ id: 's', task: 'text-to-image', items: 0 }]));
    expect(renderAnnotations(builder)).toEqual([]);
  });
});
