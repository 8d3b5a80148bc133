import type { ReportItem, RunReportSource } from './run-report-types.js';

/*
 * GitHub Actions workflow commands (`::error title=…::message`), escaped exactly as
 * @actions/core's `command.ts` does, so the runner unescapes them back to the original text.
 */

/** Escapes a command's message: `%`, CR and LF. */
export function escapeCommandData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a command property value: as {@link escapeCommandData}, plus `:` and `,` (the property separators). */
export function escapeCommandProperty(value: string): string {
  return escapeCommandData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * One workflow command line (without the newline). Like the toolkit, properties whose value
 * is undefined or empty are left out.
 */
export function formatWorkflowCommand(
  command: string,
  properties: Readonly<Record<string, string | number | undefined>>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${escapeCommandProperty(String(value))}`);
  return `::${command}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeCommandData(message)}`;
}

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
  const failing = (status: string): boolean => status === 'failed' || status === 'unknown';
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
