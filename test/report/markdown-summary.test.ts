import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendStepSummary } from '../../src/report/ci/github-step-summary.js';
import { renderMarkdownSummary } from '../../src/report/ci/markdown-summary.js';
import { codeSpan, escapeMarkdown } from '../../src/report/ci/markdown-text.js';
import { RunReportBuilder } from '../../src/report/files/run-report.js';
import { failed, node, runFinished, runStarted, sampleRun, skipped, T0 } from './run-events.js';

function sampleBuilder(): RunReportBuilder {
  const builder = new RunReportBuilder();
  for (const event of sampleRun()) builder.handle(event);
  return builder;
}

/** 100,000 failures of step `a` (with long messages) and 100,000 skipped dependents in step `b`. */
function hugeFailureBuilder(): RunReportBuilder {
  const builder = new RunReportBuilder();
  builder.handle(runStarted([{ id: 'a', task: 'text-to-image', items: 100_000 }, { id: 'b', task: 'image-upscale', items: 100_000 }]));
  const message = 'the worker ran out of memory while rendering '.repeat(4);
  for (let i = 0; i < 100_000; i++) {
    builder.handle(failed(node('a', i, `prompt-${i}`), T0 + i, { code: 'E_JOB_FAILED', message }, `req-${i}`));
    builder.handle(skipped(node('b', i, `prompt-${i}`), T0 + i, `upstream a[${i}] failed`));
  }
  builder.handle(runFinished({ total: 200_000, done: 0, cached: 0, failed: 100_000, skipped: 100_000, unknown: 0, pending: 0 }, { ts: T0 + 100_000 }));
  return builder;
}

describe('renderMarkdownSummary', () => {
  it('starts with the status line and a table per step with quoted and actual cost', () => {
    const md = renderMarkdownSummary(sampleBuilder());
    const lines = md.split('\n');
    expect(lines[0]).toBe('## deflow: Podcast: ❌ failed (exit 1)');
    expect(lines[2]).toBe('run `run-1` · `podcast.yaml` · 2.5s · $0.1875 spent; quoted $0.2500 (up to $0.2750)');
    expect(md).toContain(
      [
        '| step | task | items | done | cached | failed | unknown | skipped | pending | quoted | actual |',
        '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        '| `transcribe` | audio-to-text | 3 | 2 | 1 | 1 | 0 | 0 | 0 | $0.1250 | $0.0625 |',
        '| `speak` | text-to-speech | 3 | 1 | 0 | 0 | 1 | 1 | 0 | $0.1250 | $0.1250 |',
        '| **total** |  | 6 | 3 | 1 | 1 | 1 | 1 | 0 | $0.2500 | $0.1875 |',
      ].join('\n'),
    );
  });

  it('lists failed and unknown items with their errors before skipped items', () => {
    const md = renderMarkdownSummary(sampleBuilder());
    const failures = md.indexOf('### Failures (2)');
    const skippedAt = md.indexOf('### Skipped (1)');
    expect(failures).toBeGreaterThan(md.indexOf('| **total** |'));
    expect(skippedAt).toBeGreaterThan(failures);
    expect(md).toContain(
      '- ❌ **transcribe[1]** `b.mp3`: `E_JOB_FAILED` the job failed (job error `WORKER_ERROR`, reason `PROCESSING_FAILED`, request `req-t1`)',
    );
    expect(md).toContain('- ❓ **speak[2]** `c.mp3`: `E_JOB_UNKNOWN` outcome unknown: connection reset while submitting');
    expect(md).toContain('- **speak[1]** `b.mp3`: upstream transcribe\\[1\\] failed');
  });

  it('stays under 900 KiB with 100,000 failures and says it was truncated', () => {
    const md = renderMarkdownSummary(hugeFailureBuilder(), { reportPath: 'out/run.json' });
    expect(Buffer.byteLength(md, 'utf8')).toBeLessThanOrEqual(900 * 1024);
    expect(md).toContain('### Failures (100000)');
    expect(md).not.toContain('### Skipped');
    expect(md).toMatch(/\n_… truncated: \d+ more entries not shown; see the JSON report \(`out\/run\.json`\)\._\n$/);
    const shown = md.split('\n').filter((line) => line.startsWith('- ❌')).length;
    expect(md).toContain(`truncated: ${200_000 - shown} more entries`);
  });

  it('respects a smaller cap', () => {
    const md = renderMarkdownSummary(sampleBuilder(), { maxBytes: 1200 });
    expect(Buffer.byteLength(md, 'utf8')).toBeLessThanOrEqual(1200);
    expect(md).toContain('truncated');
  });
});

describe('appendStepSummary', () => {
  it('appends to $GITHUB_STEP_SUMMARY and never overwrites what is there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-summary-'));
    try {
      const path = join(dir, 'summary.md');
      await writeFile(path, '# earlier step\n');
      await appendStepSummary(path, sampleBuilder());
      await appendStepSummary(path, sampleBuilder());
      const text = await readFile(path, 'utf8');
      expect(text.startsWith('# earlier step\n\n## deflow: Podcast')).toBe(true);
      expect(text.split('## deflow: Podcast').length).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the whole file under 1 MiB when it is already large', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-summary-'));
    try {
      const path = join(dir, 'summary.md');
      await appendFile(path, 'x'.repeat(600 * 1024));
      await appendStepSummary(path, hugeFailureBuilder());
      const size = Buffer.byteLength(await readFile(path, 'utf8'), 'utf8');
      expect(size).toBeLessThan(1024 * 1024);
      expect(size).toBeGreaterThan(900 * 1024);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('Markdown text helpers', () => {
  it('escapes punctuation that would change the rendering and folds newlines', () => {
    expect(escapeMarkdown('a|b *c* _d_ [e](f) <g> `h` \\ & #\r\nnext')).toBe(
      'a\\|b \\*c\\* \\_d\\_ \\[e\\](f) \\<g\\> \\`h\\` \\\\ \\& \\# next',
    );
    expect(codeSpan('a`b|c')).toBe('`` a`b\\|c ``');
  });
});

describe('renderMarkdownSummary: keep-going and daily deferral', () => {
  it('names items left out as invalid, and each pool whose daily limit deferred items with its reset', () => {
    const builder = new RunReportBuilder();
    builder.handle(runStarted([{ id: 'transcribe', task: 'audio.transcribe', items: 2 }, { id: 'speak', task: 'audio.speech', items: 2 }]));
    builder.handle({ type: 'item-skipped', ts: T0 + 1, node: node('transcribe', 1, 'inbox/bad.mp3'), reason: 'nightly.yaml:8:26: inbox/bad.mp3: expected aac, mp3, got an empty file', kind: 'invalid' });
    builder.handle({ type: 'item-skipped', ts: T0 + 2, node: node('speak', 1, 'inbox/bad.mp3'), reason: 'steps.transcribe item 1 was left out (invalid input)', kind: 'upstream' });
    builder.handle({ type: 'item-deferred', ts: T0 + 3, node: node('speak', 0, 'inbox/good.mp3'), pool: 'audio/speech', resetAt: T0 + 3_600_000 });
    const finished = runFinished({ total: 4, done: 1, cached: 0, failed: 0, skipped: 2, unknown: 0, pending: 1 }, { ts: T0 + 10, status: 'daily-limit', exitCode: 5 });
    builder.handle({ ...finished, deferred: [{ pool: 'audio/speech', resetAt: T0 + 3_600_000, items: 1 }] } as typeof finished);
    const markdown = renderMarkdownSummary(builder);
    expect(markdown).toContain('### Skipped (2)');
    expect(markdown).toMatch(/transcribe\[1\].*\(left out: invalid input\): nightly\.yaml:8:26: inbox\/bad\.mp3: expected aac/);
    expect(markdown).toContain('### Deferred by a daily limit (1)');
    expect(markdown).toContain('- `audio/speech`: 1 item, until 2026-01-02T04:04:05.000Z; a run after the reset finishes them');
  });
});

