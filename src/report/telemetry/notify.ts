/**
 * Run-end notifications (`notify:` in the workflow, `--notify URL`): when a run ends, a JSON
 * summary is POSTed to each URL whose `on` matches: status, exit code, counts, spend against
 * the quote and the cap, deferrals, the report's path, and a `text` line that Slack and
 * Mattermost incoming webhooks show as is (schemas/notification.schema.json). A notification
 * that fails is reported on stderr and never changes the run's exit code or its journal; a URL
 * is never printed whole (a webhook URL is a secret): only its origin.
 */
import { isoOrNull } from '../../common/index.js';
import type { RunEvent } from '../../engine/index.js';
import type { NotifyWhen } from '../../workflow/index.js';
import { formatCost } from '../format-cost.js';

export interface NotifyTarget {
  readonly url: string;
  readonly on: readonly NotifyWhen[];
  /** Where it came from, for messages: `notify[0]`, `--notify`. */
  readonly source: string;
}

type RunFinished = Extract<RunEvent, { type: 'run-finished' }>;

/** The payload (schemas/notification.schema.json). */
export interface Notification {
  readonly schema_version: 1;
  readonly text: string;
  readonly status: string;
  readonly exit_code: number;
  readonly run_id: string;
  readonly workflow: string;
  readonly workflow_name: string;
  readonly finished_at: string;
  readonly counts: RunFinished['counts'];
  readonly spent_usd: number;
  readonly spent_earlier_usd: number;
  readonly quote_usd: { readonly point: number | null; readonly high: number | null };
  readonly max_cost_usd: number | null;
  readonly deferred: readonly { readonly pool: string; readonly items: number; readonly reset_at: string | null }[];
  readonly report: string | null;
  readonly resume_command: string | null;
}

export interface NotificationContext {
  readonly workflow: string;
  readonly workflowName: string;
  readonly reportPath: string | null;
  /** Real wall time in ms. */
  readonly now: number;
}

/** Whether `finished` is one that a target with these `on` values hears. */
export function matches(on: readonly NotifyWhen[], finished: RunFinished): boolean {
  const deferred = finished.status === 'daily-limit' || (finished.counts.deferred ?? 0) > 0;
  const failure = finished.exitCode !== 0 && finished.status !== 'daily-limit';
  return on.includes('always') || (on.includes('deferred') && deferred) || (on.includes('failure') && failure);
}

const WORDS: Readonly<Record<string, string>> = {
  done: 'finished',
  failed: 'failed',
  interrupted: 'was interrupted',
  'daily-limit': 'stopped at a daily limit',
  'over-budget': 'stopped over budget',
  refused: 'was refused',
};

export function notificationOf(finished: RunFinished, context: NotificationContext): Notification {
  const c = finished.counts;
  const budget = finished.budget?.maxCost ?? null;
  const parts = [`${c.done}/${c.total} done`];
  if (c.cached > 0) parts.push(`${c.cached} cached`);
  if (c.failed > 0) parts.push(`${c.failed} failed`);
  if ((c.invalid ?? 0) > 0) parts.push(`${c.invalid} left out`);
  if ((c.deferred ?? 0) > 0) parts.push(`${c.deferred} deferred`);
  if (c.unknown > 0) parts.push(`${c.unknown} unknown`);
  let money = `spent ${formatCost(finished.spent)}`;
  if (finished.quoted !== null) money += ` (quote ${formatCost(finished.quoted)})`;
  if (budget !== null) money += `, cap ${formatCost(budget)}`;
  const lines = [`deflow: ${context.workflowName} ${WORDS[finished.status] ?? finished.status} (exit ${finished.exitCode}): ${parts.join(', ')}; ${money}`];
  if (context.reportPath !== null) lines.push(`report: ${context.reportPath}`);
  if (finished.resumeCommand !== null && finished.status !== 'done') lines.push(`resume: ${finished.resumeCommand}`);
  return {
    schema_version: 1,
    text: lines.join('\n'),
    status: finished.status,
    exit_code: finished.exitCode,
    run_id: finished.runId,
    workflow: context.workflow,
    workflow_name: context.workflowName,
    finished_at: new Date(context.now).toISOString(),
    counts: c,
    spent_usd: finished.spent,
    spent_earlier_usd: finished.spentEarlier ?? 0,
    quote_usd: { point: finished.quoted, high: finished.quotedHigh ?? null },
    max_cost_usd: budget,
    deferred: (finished.deferred ?? []).map((d) => ({ pool: d.pool, items: d.items, reset_at: isoOrNull(d.resetAt) })),
    report: context.reportPath,
    resume_command: finished.resumeCommand,
  };
}

/** Origin of a URL, for messages (never its path or query, which may hold a token). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(an invalid URL)';
  }
}

export interface SendResult {
  readonly target: NotifyTarget;
  /** null when it was delivered (a 2xx answer). */
  readonly error: string | null;
}

/** POSTs `notification` to each target that hears `finished`; one try each, `timeoutMs` each. */
export async function sendNotifications(targets: readonly NotifyTarget[], finished: RunFinished, notification: Notification, timeoutMs = 5000): Promise<SendResult[]> {
  const body = JSON.stringify(notification);
  return Promise.all(
    targets
      .filter((target) => matches(target.on, finished))
      .map(async (target): Promise<SendResult> => {
        try {
          const answer = await fetch(target.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'user-agent': 'deflow' },
            body,
            signal: AbortSignal.timeout(timeoutMs),
            redirect: 'error',
          });
          await answer.arrayBuffer().catch(() => undefined);
          return { target, error: answer.ok ? null : `HTTP ${answer.status}` };
        } catch (error) {
          const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : null;
          const message = error instanceof Error ? (error.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (cause ?? error.message)) : String(error);
          return { target, error: message.split(target.url).join(originOf(target.url)) };
        }
      }),
  );
}
