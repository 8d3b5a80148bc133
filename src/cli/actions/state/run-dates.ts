/** The dates `deflow status` shows: real wall time, and on the emulator's accelerated clock its own dates beside them. */
import type { InvocationEntry, RunSummary } from '../../../engine/index.js';

/** Dates as a person reads them, the emulator's beside them where its clock ran ahead. */
export interface RunDates {
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly emulator_time?: { readonly started_at: string | null; readonly finished_at: string | null };
}

/**
 * A session's dates as a person reads them: real wall time; on the emulator's accelerated clock
 * (`firstReal` not null) the emulator's own dates beside them. `firstReal`: the run's real start
 * for its first session, whose entry may predate real times in invocations.json.
 */
export function sessionTimes(entry: InvocationEntry, session: { startedAt: number; finishedAt: number | null }, firstReal: number | undefined | null): RunDates {
  const clock = { started_at: iso(session.startedAt), finished_at: iso(session.finishedAt ?? undefined) };
  if (firstReal === null) return clock;
  return { started_at: iso(entry.real_started_at ?? firstReal), finished_at: iso(entry.real_finished_at ?? undefined), emulator_time: clock };
}

/** A run's dates as a person reads them: real; a run on the emulator's accelerated clock has its own beside them. */
export function runTimes(meta: RunSummary['meta'], journalStart: number | undefined): RunDates {
  const clock = { started_at: iso(meta?.started_at ?? journalStart), finished_at: iso(meta?.finished_at ?? undefined) };
  if (meta?.real_started_at === undefined) return clock;
  return { ...realOrClock(meta), emulator_time: clock };
}

/** Real dates when run.json has them (a run on the emulator's accelerated clock), else the run clock's (real time). */
export function realOrClock(meta: RunSummary['meta']): { started_at: string | null; finished_at: string | null } {
  if (meta?.real_started_at !== undefined) return { started_at: iso(meta.real_started_at), finished_at: iso(meta.real_finished_at ?? undefined) };
  return { started_at: iso(meta?.started_at), finished_at: iso(meta?.finished_at ?? undefined) };
}

function iso(ms: number | undefined): string | null {
  return ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}
