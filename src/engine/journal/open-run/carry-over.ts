/**
 * What a new run takes over from the latest earlier run of its workflow: unknown items (never
 * quietly paid for again), paid items whose result it still has to fetch, timed-out jobs to poll.
 */
import type { JournalNodeIds } from '../journal-node-ids.js';
import { readRunState } from '../journal-replay.js';
import { type PaidNode, planResume, type ResumePlan, type TimedOutNode, type UnknownNode } from '../resume-plan.js';
import { listRuns, type RunSummary, runPaths } from '../state-dir.js';
import type { OpenDurableRunOptions } from './durable-run-types.js';

/**
 * Unknown items a new run takes over from an earlier one, paid items whose result it still
 * has to fetch (never to buy again), and which run that was.
 */
export interface Carried {
  readonly unknowns: readonly UnknownNode[];
  readonly paid: readonly PaidNode[];
  /** Jobs that timed out: polled and adopted, never submitted again (unless `--resubmit-timed-out`). */
  readonly timedOut: readonly TimedOutNode[];
  readonly from: string | null;
}

export const NOTHING_CARRIED: Carried = { unknowns: [], paid: [], timedOut: [], from: null };

export function carried(options: OpenDurableRunOptions, previous: ResumePlan | undefined, from: string): Carried {
  if (previous === undefined) return NOTHING_CARRIED;
  return { unknowns: options.resubmitUnknown ? [] : previous.unknowns, paid: previous.paid, timedOut: options.resubmitTimedOut ? [] : previous.timedOut, from };
}

/** What a new run named `runId` takes over: the unknowns of the latest other run of the workflow. */
export async function carryOver(options: OpenDurableRunOptions, ids: JournalNodeIds, digest: string, runId: string): Promise<Carried> {
  const latest = (await listRuns(options.stateDir)).find((run) => run.runId !== runId && run.meta?.workflow_digest === digest);
  if (latest === undefined || latest.status === 'done') return NOTHING_CARRIED;
  return carried(options, await planFinishedRun(options, ids, latest), latest.runId);
}

/** What a finished run left behind, or undefined when its journal cannot be read. */
export async function planFinishedRun(options: Pick<OpenDurableRunOptions, 'stateDir'>, ids: JournalNodeIds, run: RunSummary): Promise<ResumePlan | undefined> {
  try {
    return planResume(await readRunState(runPaths(options.stateDir, run.runId).journal), { ids });
  } catch {
    return undefined;
  }
}
