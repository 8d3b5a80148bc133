/**
 * Opens the journal of a run: a new one, or the one to resume. Which run a `deflow run` of
 * a workflow continues, in order:
 *
 * 1. `--run-id ID`: that run when it exists (whatever its status), else a new run named ID.
 * 2. The latest run of the same workflow (same file and inputs) when it did not finish
 *    (crashed, interrupted, stopped by a daily limit), or finished with jobs still in
 *    flight (paid for, to collect).
 * 3. Otherwise a new run. If the latest run ended with `unknown` items, they are carried
 *    into the new run's journal as unknown: a new run must not quietly pay for them again
 *    (`--resubmit-unknown` submits them). Items whose job timed out are carried over too, as
 *    jobs to poll and adopt (`--resubmit-timed-out` submits them again instead).
 *
 * One session at a time per state folder: the choice is made holding the state folder's lock
 * (`session.lock`), taken before anything is read, and kept until the session closes. Two runs
 * started at the same moment cannot both choose to create a run: the second is refused
 * (`E_STATE_LOCKED`), or with `waitLockMs` waits for the first and then chooses.
 *
 * The parts live in `open-run/`: choosing the run (`choose-run.ts`), creating one
 * (`create-run.ts`), resuming one (`resume-run.ts`), what a new run carries over
 * (`carry-over.ts`), closing (`close-run.ts`); this file takes the lock and is their face.
 */
import { DeflowError, isDeflowError, mkdirDurable } from '../../common/index.js';
import { acquireLockWaiting, type LockFile } from './lock-file.js';
import { openOrCreate } from './open-run/choose-run.js';
import type { DurableRun, OpenDurableRunInternals, OpenDurableRunOptions } from './open-run/durable-run-types.js';
import { stateLayout } from './state-dir.js';

export type { DurableRun, OpenDurableRunInternals, OpenDurableRunOptions } from './open-run/durable-run-types.js';
export { previewResumeSeeds } from './open-run/preview-resume-seeds.js';
export { digestWorkflow } from './open-run/workflow-digest.js';

/** Opens (or creates) the journal of the run `deflow run` should write. */
export function openDurableRun(options: OpenDurableRunOptions): Promise<DurableRun> {
  return openDurableRunWith(options);
}

/**
 * {@link openDurableRun} with the test seams of {@link OpenDurableRunInternals}. A state folder
 * that cannot be written (read-only, a file in its path, a full disk) is `E_STATE_DIR`, before
 * anything is submitted.
 */
export async function openDurableRunWith(options: OpenDurableRunInternals): Promise<DurableRun> {
  try {
    mkdirDurable(options.stateDir);
    const session = await acquireLockWaiting(stateLayout(options.stateDir).sessionLock, {
      subject: options.stateDir,
      waitMs: options.waitLockMs ?? 0,
      ...(options.onLockWait === undefined ? {} : { onWait: (_holder: unknown, message: string) => options.onLockWait?.(message) }),
      ...(options.interrupted === undefined ? {} : { interrupted: options.interrupted }),
    });
    try {
      return holding(await openOrCreate(options), session);
    } catch (error) {
      session.release();
      throw error;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (isDeflowError(error) || typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw error;
    throw new DeflowError('E_STATE_DIR', `${options.stateDir}: cannot write the state folder (${(error as Error).message}); pass --state-dir with a writable folder`, {
      cause: error,
      details: { stateDir: options.stateDir, errno: code },
    });
  }
}

/** The run, with the state folder's lock released after it closes. */
function holding(run: DurableRun, session: LockFile): DurableRun {
  return {
    ...run,
    async close(status) {
      try {
        await run.close(status);
      } finally {
        session.release();
      }
    },
  };
}
