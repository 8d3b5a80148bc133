/**
 * `--drain[=DURATION]`: how long a session with webhooks keeps polling its jobs in flight after
 * Ctrl-C, so the deliveries the service makes for them find a receiver (docs/running.md,
 * "Ending a session with jobs in flight"), and what Ctrl-C says about them.
 */
import { DeflowError } from '../common/index.js';
import type { RunEventSink } from '../engine/index.js';

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86_400e3 };

/** How long jobs in flight are polled after Ctrl-C without --drain (the engine's default). */
const DEFAULT_GRACE_MS = 15_000;
/** --drain's default in CI (CI=true) without a deadline: a bounded wait, so a job step does not hang for hours. */
export const CI_DRAIN_MS = 10 * 60_000;
/**
 * The time the session must have ended by (a CI step's timeout: GitHub does not tell a step its
 * timeout, so the action computes it from its `timeout-minutes` input and its own start).
 */
export const DRAIN_DEADLINE_ENV = 'DEFLOW_DRAIN_DEADLINE';
/** Kept free before the deadline: the reports are written and the process exits after the drain. */
export const DEADLINE_MARGIN_MS = 30_000;

/**
 * `--drain[=DURATION]`: how long (ms) jobs in flight are still polled after Ctrl-C (or their
 * deliveries awaited after a budget stop or a daily limit) when the run has webhooks: alone,
 * until they are done; without the flag, until 30 s before $DEFLOW_DRAIN_DEADLINE when it is
 * set (a function: the time left when the drain starts), else 10 minutes in CI, else 15 s.
 * `now`: epoch ms.
 */
export function parseDrain(value: string | boolean | undefined, env: Readonly<Record<string, string | undefined>>, now: () => number = Date.now): number | (() => number) {
  if (value === undefined || value === false) {
    const deadline = drainDeadline(env, now);
    if (deadline !== undefined) return deadline;
    return env['CI'] === 'true' || env['CI'] === '1' ? CI_DRAIN_MS : DEFAULT_GRACE_MS;
  }
  if (value === true || value.trim() === '') return Number.POSITIVE_INFINITY;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (match === null) {
    throw new DeflowError('E_USAGE_OPTION', `--drain: expected a duration such as 90s, 10m or 2h (or --drain alone: until the jobs are done), got ${JSON.stringify(value)}`, {
      details: { option: '--drain' },
    });
  }
  return Number(match[1]) * (DURATION_UNITS[match[2] ?? 's'] ?? 1e3);
}

/** The ms left, when asked, until {@link DEADLINE_MARGIN_MS} before $DEFLOW_DRAIN_DEADLINE (at least 0), or undefined when it is not set. */
function drainDeadline(env: Readonly<Record<string, string | undefined>>, now: () => number): (() => number) | undefined {
  const raw = env[DRAIN_DEADLINE_ENV]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const at = /^\d+(?:\.\d+)?$/.test(raw) ? Number(raw) * 1000 : /^\d{4}-\d\d-\d\dT/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(at)) {
    throw new DeflowError('E_USAGE_OPTION', `${DRAIN_DEADLINE_ENV}: expected the time this session must end by, as ISO 8601 (2026-01-02T03:04:05Z) or Unix seconds, got ${JSON.stringify(raw)}`, {
      details: { option: DRAIN_DEADLINE_ENV },
    });
  }
  return () => Math.max(0, at - now() - DEADLINE_MARGIN_MS);
}

/** What Ctrl-C says when jobs given this session's webhook URL are in flight. */
export function drainNotice(inFlight: number, drainMs: number): string {
  if (inFlight === 0) return '';
  const jobs = `${inFlight} job${inFlight === 1 ? '' : 's'} in flight ${inFlight === 1 ? 'was' : 'were'} given this session's webhook URL`;
  const harm = `their deliveries (up to ${2 * inFlight}, each retried for about 23 h) fail while nothing answers at that URL, and 10 failed deliveries in a row switch off the account's webhooks`;
  if (drainMs > DEFAULT_GRACE_MS) {
    const bound = Number.isFinite(drainMs) ? `up to ${formatDrain(drainMs)} ` : '';
    return `deflow: ${jobs}: waiting ${bound}for them to end (--drain), since ${harm}; Ctrl-C again stops now\n`;
  }
  return `deflow: ${jobs}: once this session ends ${harm}. Pass --drain to wait for them, or resume soon at the same --webhook-url (it answers their retries)\n`;
}

function formatDrain(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

const ENDS_A_JOB: ReadonlySet<string> = new Set(['item-done', 'item-failed', 'item-retry', 'item-skipped', 'item-timed-out', 'item-unknown', 'item-deferred']);

/** Jobs submitted and not ended, from the run's events. */
export class JobsInFlight {
  private readonly jobs = new Set<string>();

  get count(): number {
    return this.jobs.size;
  }

  see(event: Parameters<RunEventSink>[0]): void {
    if (!('node' in event) || event.node === undefined) return;
    const key = `${event.node.step}\n${event.node.index}`;
    if (event.type === 'item-submitted') this.jobs.add(key);
    else if (ENDS_A_JOB.has(event.type)) this.jobs.delete(key);
  }
}
