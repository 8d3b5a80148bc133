/**
 * Which run a `deflow run` of a workflow continues, or creates (the order is told in
 * `../durable-run.ts`). Called holding the state folder's lock.
 */
import { existsSync } from 'node:fs';
import { adoptKeptDeliveries } from '../adopt-deliveries.js';
import { JournalNodeIds } from '../journal-node-ids.js';
import { listRuns, newRunId, RESUMABLE_STATUSES, readRunMeta, runPaths } from '../state-dir.js';
import { carried, carryOver, NOTHING_CARRIED, planFinishedRun } from './carry-over.js';
import { createRun } from './create-run.js';
import type { DurableRun, OpenDurableRunInternals } from './durable-run-types.js';
import { resumeRun } from './resume-run.js';
import { digestWorkflow } from './workflow-digest.js';

/** The run to write: the one named, the latest unfinished one of the workflow, or a new one. */
export async function openOrCreate(options: OpenDurableRunInternals): Promise<DurableRun> {
  const digest = options.workflowDigest ?? (await digestWorkflow(options.graph));
  const ids = new JournalNodeIds(options.graph);
  if (!options.fresh) {
    const runs = (await listRuns(options.stateDir)).filter((run) => run.meta?.workflow_digest === digest && !run.active);
    await adoptKeptDeliveries(options.stateDir, runs, options.clock);
  }
  if (options.runId !== undefined) {
    const meta = await readRunMeta(options.stateDir, options.runId);
    if (meta !== undefined || existsSync(runPaths(options.stateDir, options.runId).journal)) {
      return resumeRun(options, ids, options.runId, digest, meta?.started_at);
    }
    return createRun(options, ids, options.runId, digest, await carryOver(options, ids, digest, options.runId));
  }
  if (options.fresh) return createRun(options, ids, newRunId(options.clock), digest, NOTHING_CARRIED);
  const latest = (await listRuns(options.stateDir)).find((run) => run.meta?.workflow_digest === digest);
  if (latest === undefined || latest.status === 'done') return createRun(options, ids, newRunId(options.clock), digest, NOTHING_CARRIED);
  if (RESUMABLE_STATUSES.has(latest.status) || latest.active) return resumeRun(options, ids, latest.runId, digest, latest.meta?.started_at);
  const previous = await planFinishedRun(options, ids, latest);
  if (previous !== undefined && previous.counts.submitted > 0) return resumeRun(options, ids, latest.runId, digest, latest.meta?.started_at);
  return createRun(options, ids, newRunId(options.clock), digest, carried(options, previous, latest.runId));
}
