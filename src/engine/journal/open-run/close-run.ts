/**
 * The close of a durable run: the journal closed, a snapshot for the next session, the run's
 * lock released, the session's invocation finished and `run.json` given its final status.
 */
import { readRunState } from '../journal-replay.js';
import { writeJournalSnapshot } from '../journal-snapshot.js';
import { finishInvocation } from '../invocations.js';
import type { LockFile } from '../lock-file.js';
import { writeRunMeta } from '../state-dir.js';
import type { DurableParts, DurableRun, OpenDurableRunOptions } from './durable-run-types.js';
import { metaExtras, realTimes } from './run-meta-fields.js';

/**
 * Writes the journal's snapshot for the next session to start from (`journal-snapshot.ts`):
 * the earlier snapshot plus this session's records, replayed. Best effort: a snapshot is a
 * cache, and without one the next session reads the whole journal.
 */
async function snapshotJournal(journalPath: string): Promise<void> {
  try {
    const state = await readRunState(journalPath);
    writeJournalSnapshot(journalPath, { run: state.run, end: state.end, nodes: [...state.nodes.values()] }, { bytes: state.validBytes, lines: state.validLines });
  } catch {
    // Unreadable now (it is read again, and reported, when the run is resumed) or a full disk: no snapshot.
  }
}

/** The run's parts with its `close`. */
export function durableRun(options: OpenDurableRunOptions, parts: DurableParts, startedAt: number, digest: string, realStartedAt: number, lock?: LockFile): DurableRun {
  let closed = false;
  return {
    ...parts,
    async close(status) {
      if (closed) return;
      closed = true;
      await parts.journal.close();
      // A finished run is read again only by `deflow status`: its exit need not replay the journal.
      if (status !== 'done') await snapshotJournal(parts.paths.journal);
      lock?.release();
      const finishedAt = status === 'running' ? null : options.clock.now();
      finishInvocation(parts.paths.dir, options.clock.now(), status === 'running' ? 'stopped' : status);
      writeRunMeta(options.stateDir, {
        v: 1,
        run_id: parts.runId,
        workflow: options.graph.workflow.file,
        workflow_digest: digest,
        status,
        started_at: startedAt,
        finished_at: finishedAt,
        ...metaExtras(options),
        ...realTimes(options.clock, realStartedAt, status !== 'running'),
      });
    },
  };
}
