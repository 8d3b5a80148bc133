/** The node states a plain `deflow run` would start from, read without the state folder's lock. */
import type { JobGraph } from '../../../workflow/index.js';
import { JournalNodeIds } from '../journal-node-ids.js';
import { paidSeed, type ResumeSeed } from '../resume-plan.js';
import { listRuns, RESUMABLE_STATUSES } from '../state-dir.js';
import { planFinishedRun } from './carry-over.js';
import { digestWorkflow } from './workflow-digest.js';

/**
 * The node states a plain `deflow run` of this workflow would start from, read without taking
 * the state folder's lock (for `deflow quote` and `run --dry-run`): the seeds of the run it
 * would resume, or the paid-not-saved items a new run carries over. Items done or paid for
 * there are $0 to pay; items only in flight (submitted, not yet paid) are not among what a quote
 * may count as held (`findHeldItems` holds only `done` seeds and `submitted` ones with `paid`).
 * A state folder that cannot be read gives no seeds: the quote then prices everything.
 */
export async function previewResumeSeeds(options: { readonly stateDir: string; readonly graph: JobGraph }): Promise<readonly ResumeSeed[]> {
  try {
    const digest = await digestWorkflow(options.graph);
    const latest = (await listRuns(options.stateDir)).find((run) => run.meta?.workflow_digest === digest);
    if (latest === undefined || latest.status === 'done') return [];
    const plan = await planFinishedRun(options, new JournalNodeIds(options.graph), latest);
    if (plan === undefined) return [];
    if (RESUMABLE_STATUSES.has(latest.status) || latest.active || plan.counts.submitted > 0) return plan.seeds;
    return plan.paid.filter((node) => !node.lost).map((node) => paidSeed(node, 1, null));
  } catch {
    return [];
  }
}
