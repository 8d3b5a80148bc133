import { appendFile, stat } from 'node:fs/promises';
import { renderMarkdownSummary } from './markdown-summary.js';
import { ReportWriteError } from '../files/report-write-error.js';
import type { RunReportSource } from '../files/run-report-types.js';

/** GitHub refuses a step summary over 1 MiB (the whole file, including what earlier commands appended). */
const STEP_SUMMARY_LIMIT = 1024 * 1024;
const DEFAULT_CAP = 900 * 1024;
/** Room left for other writers after us in the same step. */
const HEADROOM = 16 * 1024;

/**
 * Appends the Markdown summary to `$GITHUB_STEP_SUMMARY` (never overwrites: earlier steps of
 * the same job step may have written to it). The cap shrinks by what the file already holds.
 */
export async function appendStepSummary(
  path: string,
  source: RunReportSource,
  options: { reportPath?: string | null } = {},
): Promise<void> {
  try {
    const existing = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    const maxBytes = Math.max(0, Math.min(DEFAULT_CAP, STEP_SUMMARY_LIMIT - existing - HEADROOM));
    const markdown = renderMarkdownSummary(source, { maxBytes, reportPath: options.reportPath ?? null });
    await appendFile(path, `${existing > 0 ? '\n' : ''}${markdown}`, 'utf8');
  } catch (error) {
    throw new ReportWriteError(path, 'GitHub step summary', error);
  }
}
