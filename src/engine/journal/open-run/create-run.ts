/**
 * Starts a run. Its journal appears at once with its first records (the run header and the
 * unknowns it carries over), written aside and renamed into place: a crash leaves either no
 * journal (the run is created again) or all of them, never a run that forgot an unknown.
 */
import { writeFileAtomic } from '../../../common/index.js';
import { type Journal, openJournal } from '../journal.js';
import type { JournalNodeIds } from '../journal-node-ids.js';
import { JournalRecorder } from '../journal-recorder.js';
import { type JournalEntry, stampEntry } from '../journal-records.js';
import { removeJournalSnapshot } from '../journal-snapshot.js';
import { startInvocation } from '../invocations.js';
import { acquireLock } from '../lock-file.js';
import { carriedFrom, paidSeed, type ResumeSeed } from '../resume-plan.js';
import { createRunDir, writeRunMeta } from '../state-dir.js';
import type { Carried } from './carry-over.js';
import { durableRun } from './close-run.js';
import type { DurableRun, OpenDurableRunInternals } from './durable-run-types.js';
import { metaExtras, realTimes } from './run-meta-fields.js';

/** A new run named `runId`, with what it carries over journalled as its first records. */
export async function createRun(options: OpenDurableRunInternals, ids: JournalNodeIds, runId: string, digest: string, carry: Carried): Promise<DurableRun> {
  const { stateDir, graph, clock } = options;
  const startedAt = clock.now();
  const paths = createRunDir(stateDir, runId);
  const realStartedAt = Date.now();
  writeRunMeta(stateDir, { v: 1, run_id: runId, workflow: graph.workflow.file, workflow_digest: digest, status: 'running', started_at: startedAt, finished_at: null, ...metaExtras(options), ...realTimes(clock, realStartedAt, false) });
  const lock = acquireLock(paths.lock);
  let journal: Journal;
  const seeds: ResumeSeed[] = [];
  try {
    const entries: JournalEntry[] = [{ t: 'run', run_id: runId, workflow: graph.workflow.file, workflow_digest: digest, inputs: graph.inputs, started_at: startedAt }];
    for (const node of carry.unknowns) {
      // Named after the run that lost the request id, once, however many runs carry it on.
      const reason = / \(run [^)]+\)$/.test(node.reason) ? node.reason : `${node.reason} (run ${carry.from ?? '?'})`;
      entries.push({ t: 'unknown', node: node.node, reason });
      seeds.push({ state: 'unknown', step: node.step, k: node.k, reason, ...carriedFrom(reason) });
    }
    for (const node of carry.paid) {
      entries.push({ t: 'paid', node: node.node, request_id: node.requestId, result_url: node.resultUrl, cost: node.cost });
      if (node.lost) entries.push({ t: 'unsaved', node: node.node, request_id: node.requestId, error: { code: 'E_RESULT_LOST', message: (node.reason ?? '').replace(/^E_RESULT_LOST: /, '') } });
      seeds.push(paidSeed(node, 1, null));
    }
    for (const node of carry.timedOut) {
      entries.push({ t: 'timed-out', node: node.node, request_id: node.requestId, error: { code: 'E_JOB_TIMEOUT', message: node.reason.replace(/^E_JOB_TIMEOUT: /, '') } });
      seeds.push({ state: 'submitted', step: node.step, k: node.k, requestId: node.requestId, attempt: 1, cacheKey: null });
    }
    removeJournalSnapshot(paths.journal);
    writeFileAtomic(paths.journal, entries.map((entry) => `${JSON.stringify(stampEntry(entry, startedAt))}\n`).join(''));
    journal = openJournal(paths.journal, { ...options.journalHooks, create: false, lock: false, clock });
  } catch (error) {
    lock.release();
    throw error;
  }
  const notices = carry.unknowns.length === 0 ? [] : [`${carry.unknowns.length} item(s) left unknown by run ${carry.from ?? '?'} stay unknown (pass --resubmit-unknown to submit them again)`];
  if (carry.paid.length > 0) notices.push(`${carry.paid.length} item(s) paid for in run ${carry.from ?? '?'} but not saved: their results are fetched again, not bought again`);
  if (carry.timedOut.length > 0) notices.push(`${carry.timedOut.length} item(s) timed out in run ${carry.from ?? '?'}: their jobs are polled and adopted, not submitted again (--resubmit-timed-out submits them again)`);
  const recorder = new JournalRecorder(journal, ids);
  startInvocation(paths.dir, startedAt, null);
  return durableRun(options, { runId, resumed: false, paths, journal, recorder, seeds, plan: null, unknowns: carry.unknowns, notices, earlier: [] }, startedAt, digest, realStartedAt, lock);
}
