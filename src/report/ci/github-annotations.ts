import { formatWorkflowCommand } from '../../common/index.js';
import type { ReportItem, RunReportSource } from '../files/run-report-types.js';

/** Options for {@link renderAnnotations}. */
export interface AnnotationOptions {
  /**
   * Error annotations before the summarizing notice. GitHub shows at most 10 errors per step.
   * @default 10
   */
  readonly limit?: number;
}

/**
 * `::error` lines for failed and unknown items (title = the error code), at most `limit`, then
 * one `::notice` giving the number left out.
 */
export function renderAnnotations(source: RunReportSource, options: AnnotationOptions = {}): string[] {
  const limit = options.limit ?? 10;
  const summary = source.summary();
  const lines: string[] = [];
  const failing = (status: string): boolean => status === 'failed' || status === 'unsaved' || status === 'unknown' || status === 'timed-out';
  for (const step of summary.steps) {
    if (lines.length >= limit) break;
    for (const item of source.items(step.id, failing)) {
      if (lines.length >= limit) break;
      lines.push(formatWorkflowCommand('error', { title: item.error?.code ?? item.status }, annotationMessage(step.id, item)));
    }
  }
  const total = summary.totals.failed + summary.totals.unknown;
  if (total > lines.length) {
    const more = total - lines.length;
    lines.push(
      formatWorkflowCommand('notice', {}, `${more} more failed or unknown item${more === 1 ? '' : 's'} not annotated; see the step summary or the JSON report`),
    );
  }
  return lines;
}

function annotationMessage(stepId: string, item: ReportItem): string {
  const label = `${stepId}[${item.index}]${item.key === null ? '' : ` ${item.key}`}`;
  const error = item.error;
  if (error === null) return `${label}: ${item.status}`;
  const extra = [
    error.job_error_code === undefined ? '' : `job error ${error.job_error_code}`,
    error.reason === undefined ? '' : `reason ${error.reason}`,
    item.request_id === null ? '' : `request ${item.request_id}`,
  ].filter((part) => part !== '');
  return `${label}: ${error.message}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
}
