/** What `run.json` keeps of a session beside its status: options, items per step, real times. */
import type { Clock } from '../../../common/index.js';
import type { RunOptionsRecord } from '../state-dir.js';
import type { OpenDurableRunOptions } from './durable-run-types.js';

/**
 * Real wall times beside the run clock's when that clock runs ahead of real time (the
 * emulator's): when the run began (`realStartedAt`, kept from its first session) and, once it
 * has ended, when it ended.
 */
export function realTimes(clock: Clock, realStartedAt: number, ended: boolean): { real_started_at?: number; real_finished_at?: number | null } {
  if (clock.realPerVirtual >= 1) return {};
  return { real_started_at: realStartedAt, real_finished_at: ended ? Date.now() : null };
}

/** What run.json keeps beside the status: the session's options and the items per step. */
export function metaExtras(options: OpenDurableRunOptions): { options?: RunOptionsRecord; items: Record<string, number> } {
  const items = Object.fromEntries(options.graph.steps.map((step) => [step.id, step.itemCount]));
  return options.runOptions === undefined ? { items } : { options: options.runOptions, items };
}
