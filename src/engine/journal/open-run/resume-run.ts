/**
 * Continues a run from its journal: the resume plan replayed from it, what the user should know
 * (a torn tail cut, a changed workflow) and what the earlier sessions spent.
 */
import { isDeflowError } from '../../../common/index.js';
import { type Journal, openJournal } from '../journal.js';
import type { JournalNodeIds } from '../journal-node-ids.js';
import { JournalRecorder } from '../journal-recorder.js';
import { readRunState } from '../journal-replay.js';
import { attributeSpend, chargedJobs, startInvocation } from '../invocations.js';
import { planResume } from '../resume-plan.js';
import { createRunDir, readRunMeta, writeRunMeta } from '../state-dir.js';
import { carryOver } from './carry-over.js';
import { durableRun } from './close-run.js';
import { createRun } from './create-run.js';
import type { DurableRun, OpenDurableRunInternals } from './durable-run-types.js';
import { metaExtras, realTimes } from './run-meta-fields.js';

/** The run `runId` continued (or created, when it died before its journal was written). */
export async function resumeRun(options: OpenDurableRunInternals, ids: JournalNodeIds, runId: string, digest: string, startedAt: number | undefined): Promise<DurableRun> {
  const { stateDir, graph, clock } = options;
  const paths = createRunDir(stateDir, runId);
  let journal: Journal;
  try {
    journal = openJournal(paths.journal, { ...options.journalHooks, create: false, clock });
  } catch (error) {
    // The run died between writing run.json and creating its journal: nothing was sent.
    if (!isDeflowError(error, 'E_JOURNAL_MISSING')) throw error;
    return createRun(options, ids, runId, digest, await carryOver(options, ids, digest, runId));
  }
  try {
    const replayed = await readRunState(paths.journal);
    const plan = planResume(replayed, { ids, resubmitUnknown: options.resubmitUnknown ?? false, resubmitTimedOut: options.resubmitTimedOut ?? false });
    const notices: string[] = [];
    if (journal.repairedBytes > 0) notices.push(`${paths.journal}: cut a torn last record (${journal.repairedBytes} bytes) left by a crash`);
    if (replayed.run !== null && replayed.run.workflow_digest !== digest) {
      notices.push(`run ${runId} started from another version of the workflow or other inputs; its done items are kept as they are`);
    }
    const begun = startedAt ?? replayed.run?.started_at ?? clock.now();
    const realStartedAt = (await readRunMeta(stateDir, runId))?.real_started_at ?? Date.now();
    writeRunMeta(stateDir, { v: 1, run_id: runId, workflow: graph.workflow.file, workflow_digest: digest, status: 'running', started_at: begun, finished_at: null, ...metaExtras(options), ...realTimes(clock, realStartedAt, false) });
    const recorder = new JournalRecorder(journal, ids);
    const earlier = attributeSpend(startInvocation(paths.dir, clock.now(), begun), chargedJobs(replayed));
    return durableRun(options, { runId, resumed: true, paths, journal, recorder, seeds: plan.seeds, plan, unknowns: plan.unknowns, notices, earlier }, begun, digest, realStartedAt);
  } catch (error) {
    await journal.close();
    throw error;
  }
}
