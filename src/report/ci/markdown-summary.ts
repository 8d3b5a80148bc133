import { formatCost, formatTotal } from '../format-cost.js';
import { formatRunDuration } from '../format-duration.js';
import { codeSpan, escapeMarkdown, renderMarkdownTable, truncateText } from './markdown-text.js';
import type { ReportItem, ReportRunStatus, RunReportSource, RunReportSummary } from '../files/run-report-types.js';

/** Options for {@link renderMarkdownSummary}. */
export interface MarkdownSummaryOptions {
  /**
   * Size cap in UTF-8 bytes. GitHub rejects a step summary above 1 MiB, so the default keeps
   * ~100 KiB of headroom.
   * @default 921600 (900 KiB)
   */
  readonly maxBytes?: number;
  /** Where the full JSON report is, named in the truncation line. */
  readonly reportPath?: string | null;
  /**
   * Longest error message shown, in characters.
   * @default 300
   */
  readonly maxMessageLength?: number;
}

const STATUS_LINE: Record<ReportRunStatus, string> = {
  done: '✅ done',
  'left-out': '☑️ done, some inputs left out (invalid)',
  failed: '❌ failed',
  interrupted: '⏸️ interrupted',
  'daily-limit': '⏳ stopped by the daily rate limit',
  'over-budget': '💸 over budget',
  refused: '⛔ refused by the service',
  running: '⚠️ still running',
  incomplete: '⚠️ incomplete',
};

/** Bytes kept free for the truncation line. */
const TRUNCATION_RESERVE = 512;

/**
 * The run as Markdown for `$GITHUB_STEP_SUMMARY`: a status line, a table per step (items
 * done/cached/failed/unknown/skipped/pending, quoted vs actual cost), then failed and unknown
 * items with their errors, then skipped items. Never longer than `maxBytes`: what does not fit
 * is replaced by one line pointing to the JSON report.
 */
export function renderMarkdownSummary(source: RunReportSource, options: MarkdownSummaryOptions = {}): string {
  const summary = source.summary();
  const out = new BoundedLines(options.maxBytes ?? 900 * 1024);
  const maxMessage = options.maxMessageLength ?? 300;
  const { totals } = summary;
  const planned = totals.failed + totals.unknown + totals.skipped + summary.warnings.length;
  let shown = 0;

  const finish = (): string => {
    if (out.truncated) {
      const where = options.reportPath ? ` (${codeSpan(truncateText(options.reportPath, 200))})` : ' (`--report`)';
      const hidden = planned - shown;
      out.force(`\n_… truncated${hidden > 0 ? `: ${hidden} more entries not shown` : ''}; see the JSON report${where}._`);
    }
    return `${out.lines.join('\n')}\n`;
  };

  for (const line of headerLines(summary)) if (!out.push(line)) return finish();

  const failed = (status: string): boolean => status === 'failed' || status === 'unsaved' || status === 'unknown' || status === 'timed-out';
  if (totals.failed + totals.unknown > 0) {
    if (!out.push('', `### Failures (${totals.failed + totals.unknown})`, '')) return finish();
    for (const step of summary.steps) {
      for (const item of source.items(step.id, failed)) {
        if (!out.push(failureLine(step.id, item, maxMessage))) return finish();
        shown += 1;
      }
    }
  }
  if (totals.skipped > 0) {
    if (!out.push('', `### Skipped (${totals.skipped})`, '')) return finish();
    for (const step of summary.steps) {
      for (const item of source.items(step.id, (status) => status === 'skipped')) {
        const reason = item.skip_reason === null ? '' : `: ${escapeMarkdown(truncateText(item.skip_reason, maxMessage))}`;
        const kind = item.skip_kind === 'invalid' ? ' (left out: invalid input)' : '';
        if (!out.push(`- ${itemLabel(step.id, item)}${kind}${reason}`)) return finish();
        shown += 1;
      }
    }
  }
  if (summary.deferred.length > 0) {
    if (!out.push('', `### Deferred by a daily limit (${totals.deferred})`, '')) return finish();
    for (const pool of summary.deferred) {
      const until = pool.reset_at === null ? 'its reset time is unknown' : `until ${pool.reset_at}`;
      if (!out.push(`- ${codeSpan(pool.pool)}: ${pool.items} item${pool.items === 1 ? '' : 's'}, ${until}; a run after the reset finishes them`)) return finish();
    }
  }
  if (summary.warnings.length > 0) {
    if (!out.push('', `### Warnings (${summary.warnings.length + summary.warnings_dropped})`, '')) return finish();
    for (const warning of summary.warnings) {
      if (!out.push(`- ${escapeMarkdown(truncateText(warning, maxMessage))}`)) return finish();
      shown += 1;
    }
  }
  return finish();
}

function headerLines(summary: RunReportSummary): string[] {
  const { totals } = summary;
  const exit = summary.exit_code === null ? '' : ` (exit ${summary.exit_code})`;
  const name = summary.workflow_name || summary.workflow;
  const facts = [`run ${codeSpan(summary.run_id)}`, codeSpan(summary.workflow), formatRunDuration(summary.duration_ms, summary.time_scale), costFact(summary)];
  const lines = [`## deflow: ${escapeMarkdown(name)}: ${STATUS_LINE[summary.status]}${exit}`, '', facts.join(' · ')];
  const sessions = summary.invocations;
  if (sessions.length > 1) {
    const each = sessions.map((s) => `#${s.index} ${formatCost(s.cost_actual)} (${escapeMarkdown(s.status)}${s.current ? ', this one' : ''})`);
    lines.push('', `Cost over ${sessions.length} sessions: ${each.join(' · ')}`);
  }
  const budget = budgetLine(summary);
  if (budget !== null) lines.push('', budget);
  if (summary.resume_command !== null) lines.push('', `Resume with ${codeSpan(summary.resume_command)}`);
  const count = (n: number): string => String(n);
  const rows = summary.steps.map((step) => [
    codeSpan(step.id),
    escapeMarkdown(step.task),
    count(step.counts.items),
    count(step.counts.done),
    count(step.counts.cached),
    count(step.counts.failed),
    count(step.counts.unknown),
    count(step.counts.skipped),
    count(step.counts.pending),
    formatCost(step.cost_quoted),
    formatCost(step.cost_actual),
  ]);
  rows.push([
    '**total**',
    '',
    count(totals.items),
    count(totals.done),
    count(totals.cached),
    count(totals.failed),
    count(totals.unknown),
    count(totals.skipped),
    count(totals.pending),
    formatCost(totals.cost_quoted),
    formatCost(totals.cost_actual),
  ]);
  const right = (title: string) => ({ title, align: 'right' as const });
  const columns = [
    { title: 'step' },
    { title: 'task' },
    ...['items', 'done', 'cached', 'failed', 'unknown', 'skipped', 'pending', 'quoted', 'actual'].map(right),
  ];
  lines.push('', ...renderMarkdownTable(columns, rows));
  return lines;
}

/** `$0.4712 spent; quoted $0.4600 (up to $0.5100)`: the whole run's cost against its quote. */
function costFact(summary: RunReportSummary): string {
  const spent = `${formatCost(summary.totals.cost_actual)} spent`;
  const quote = summary.quote;
  if (quote === null) return `${spent} (not quoted)`;
  return `${spent}; quoted ${formatTotal({ point: quote.point, high: quote.high, unknown_items: quote.unknown_items })}`;
}

/** What the budget did, when it stopped something. */
function budgetLine(summary: RunReportSummary): string | null {
  const budget = summary.budget;
  if (budget === null || budget.max_cost === null) return null;
  const cap = formatCost(budget.max_cost);
  if (budget.refused !== null) {
    const r = budget.refused;
    const item = `${escapeMarkdown(r.step)}[${r.index}]`;
    return `**Budget ${cap}:** ${item} was not submitted: holding ${formatCost(r.amount)} (${escapeMarkdown(r.how)}) on top of ${formatCost(r.spent)} spent and ${formatCost(r.reserved)} reserved would pass the cap. Nothing was submitted past it; resume with a higher cap.`;
  }
  if (summary.status === 'over-budget' && budget.reason !== null) return `**Budget ${cap}:** not started: ${escapeMarkdown(budget.reason)}. Nothing was submitted.`;
  return `Budget ${cap}: ${escapeMarkdown(budget.reason ?? 'within')}`;
}

function failureLine(stepId: string, item: ReportItem, maxMessage: number): string {
  const error = item.error;
  if (error === null) return `- ❌ ${itemLabel(stepId, item)}`;
  const extra = [
    error.job_error_code === undefined ? '' : `job error ${codeSpan(error.job_error_code)}`,
    error.reason === undefined ? '' : `reason ${codeSpan(error.reason)}`,
    item.request_id === null ? '' : `request ${codeSpan(item.request_id)}`,
  ].filter((part) => part !== '');
  const icon = item.status === 'unknown' ? '❓' : '❌';
  const message = escapeMarkdown(truncateText(error.message, maxMessage));
  return `- ${icon} ${itemLabel(stepId, item)}: ${codeSpan(error.code)} ${message}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`;
}

function itemLabel(stepId: string, item: ReportItem): string {
  const key = item.key === null ? '' : ` ${codeSpan(truncateText(item.key, 200))}`;
  return `**${escapeMarkdown(stepId)}[${item.index}]**${key}`;
}

/** Lines with a running UTF-8 byte count; refuses a line that would pass the cap. */
class BoundedLines {
  readonly lines: string[] = [];
  truncated = false;
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Adds every line, or none and marks the output truncated. */
  push(...lines: string[]): boolean {
    if (this.truncated) return false;
    let size = 0;
    for (const line of lines) size += Buffer.byteLength(line, 'utf8') + 1;
    if (this.bytes + size > this.maxBytes - TRUNCATION_RESERVE) {
      this.truncated = true;
      return false;
    }
    this.lines.push(...lines);
    this.bytes += size;
    return true;
  }

  /** Adds a line past the reserve (the truncation notice). */
  force(line: string): void {
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line, 'utf8') + 1;
  }
}
