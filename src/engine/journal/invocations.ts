/**
 * The sessions of a run: every `deflow run` invocation that worked on it, in
 * `runs/<runId>/invocations.json` (start, end, how it ended), written when a session opens the
 * run (before anything is submitted) and when it closes it, on the run's clock and in real wall
 * time (apart on the emulator's accelerated clock). A session killed outright keeps its start
 * only. What each session spent is read off the journal: a job is charged when it finishes, so
 * its `done` record's time says which session paid for it. Reports and `deflow status` add the
 * sessions up to the whole run's cost.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsdTally, writeFileAtomic } from '../../common/index.js';
import type { EarlierInvocation } from '../contracts/events.js';
import type { RunState as ReplayedRun } from './replayed-state.js';
import type { RecordOf } from './journal-records.js';

export const INVOCATIONS_FILE = 'invocations.json';

/** One session as the file keeps it (clock ms). */
export interface InvocationEntry {
  readonly started_at: number;
  readonly finished_at: number | null;
  /** `running` until the session says how it ended. */
  readonly status: string;
  /** Real wall time (epoch ms) of its start and end: apart from the clock's on the emulator's accelerated clock. Absent in older files. */
  readonly real_started_at?: number;
  readonly real_finished_at?: number | null;
}

/** The sessions recorded for the run in `dir` (none when the file is missing or unreadable). */
export function readInvocations(dir: string): InvocationEntry[] {
  try {
    const value = JSON.parse(readFileSync(join(dir, INVOCATIONS_FILE), 'utf8')) as { invocations?: unknown };
    return Array.isArray(value.invocations) ? (value.invocations as InvocationEntry[]).filter((e) => typeof e?.started_at === 'number') : [];
  } catch {
    return [];
  }
}

function write(dir: string, entries: readonly InvocationEntry[]): void {
  writeFileAtomic(join(dir, INVOCATIONS_FILE), `${JSON.stringify({ v: 1, invocations: entries }, null, 2)}\n`);
}

/**
 * Records a new session starting at `at`; returns the earlier ones. A run older than this file
 * counts its history as one earlier session from `runStartedAt`.
 */
export function startInvocation(dir: string, at: number, runStartedAt: number | null): InvocationEntry[] {
  let earlier = readInvocations(dir);
  if (earlier.length === 0 && runStartedAt !== null) earlier = [{ started_at: runStartedAt, finished_at: null, status: 'unrecorded' }];
  write(dir, [...earlier, { started_at: at, finished_at: null, status: 'running', real_started_at: Date.now(), real_finished_at: null }]);
  return earlier;
}

/** Records how the latest session ended. */
export function finishInvocation(dir: string, at: number | null, status: string): void {
  const entries = readInvocations(dir);
  const last = entries.at(-1);
  if (last === undefined) return;
  write(dir, [...entries.slice(0, -1), { ...last, finished_at: at, status, real_finished_at: at === null ? null : Date.now() }]);
}

/** USD of every job done in the journal, with when it was done. */
export function chargedJobs(run: ReplayedRun): { at: number; cost: number }[] {
  const out: { at: number; cost: number }[] = [];
  for (const node of run.nodes.values()) {
    if (node.phase === 'paid') {
      // Paid, not saved: charged when the service said it was done.
      const cost = node.paid?.cost;
      if (node.paid !== null && typeof cost === 'number' && cost > 0) out.push({ at: node.paid.ts, cost });
      continue;
    }
    if (node.phase !== 'done') continue;
    const record = node.last as RecordOf<'done'>;
    if (typeof record.cost === 'number' && record.cost > 0) out.push({ at: record.ts, cost: record.cost });
  }
  return out;
}

/** Each session with what was charged during it (a job belongs to the session its `done` falls in). */
export function attributeSpend(entries: readonly InvocationEntry[], charged: readonly { at: number; cost: number }[]): EarlierInvocation[] {
  const spent = entries.map(() => new UsdTally());
  for (const job of charged) {
    let i = 0;
    while (i + 1 < entries.length && job.at >= entries[i + 1]!.started_at) i++;
    spent[i]?.add(job.cost);
  }
  return entries.map((e, i) => ({
    startedAt: e.started_at,
    finishedAt: e.finished_at,
    status: e.status === 'running' || e.status === 'unrecorded' ? (e.finished_at === null ? 'crashed' : e.status) : e.status,
    spent: spent[i]!.usd,
  }));
}
