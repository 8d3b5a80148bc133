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
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Clock } from '../../common/index.js';
import { DeflowError, isDeflowError } from '../../common/index.js';
import type { JobGraph } from '../../workflow/index.js';
import { type Journal, type JournalOptions, openJournal } from './journal.js';
import { JournalNodeIds } from './journal-node-ids.js';
import { JournalRecorder } from './journal-recorder.js';
import { type JournalEntry, stampEntry } from './journal-records.js';
import { acquireLock, acquireLockWaiting, type LockFile } from './lock-file.js';
import { mkdirDurable, writeFileAtomic } from '../../common/index.js';
import { readRunState } from './journal-replay.js';
import { adoptKeptDeliveries } from './adopt-deliveries.js';
import { removeJournalSnapshot, writeJournalSnapshot } from './journal-snapshot.js';
import { canonicalJson } from '../../common/index.js';
import { carriedFrom, type PaidNode, paidSeed, planResume, type ResumePlan, type ResumeSeed, type TimedOutNode, type UnknownNode } from './resume-plan.js';
import { attributeSpend, chargedJobs, finishInvocation, startInvocation } from './invocations.js';
import type { EarlierInvocation } from '../contracts/events.js';
import { createRunDir, listRuns, newRunId, RESUMABLE_STATUSES, readRunMeta, type RunMetaStatus, type RunOptionsRecord, type RunSummary, runPaths, stateLayout, writeRunMeta } from './state-dir.js';

export interface OpenDurableRunOptions {
  readonly stateDir: string;
  readonly graph: JobGraph;
  readonly clock: Clock;
  /** `--run-id`. */
  readonly runId?: string | undefined;
  /** `--resubmit-unknown`. @default false */
  readonly resubmitUnknown?: boolean;
  /** `--resubmit-timed-out`: submit items whose job timed out again instead of polling it. @default false */
  readonly resubmitTimedOut?: boolean;
  /**
   * Always start a new run, carrying nothing over (`--emulator`: the in-process emulator of an
   * earlier session, and its jobs, are gone). @default false
   */
  readonly fresh?: boolean;
  /** @default {@link digestWorkflow} of the graph */
  readonly workflowDigest?: string;
  /** The options that shaped this session, journalled in `run.json` (a plain resume uses them). */
  readonly runOptions?: RunOptionsRecord;
  /**
   * `--wait-lock`: how long (ms, or Infinity) to wait when another session holds the state
   * folder, before giving up with `E_STATE_LOCKED`. @default 0 (refused at once)
   */
  readonly waitLockMs?: number;
  /** Called once when the wait for the state folder begins (what to tell the user). */
  readonly onLockWait?: (message: string) => void;
  /** Resolves on SIGINT: a wait for the state folder ends with `E_INTERRUPTED`. */
  readonly interrupted?: Promise<void>;
}

/**
 * Real wall times beside the run clock's when that clock runs ahead of real time (the
 * emulator's): when the run began (`realStartedAt`, kept from its first session) and, once it
 * has ended, when it ended.
 */
function realTimes(clock: Clock, realStartedAt: number, ended: boolean): { real_started_at?: number; real_finished_at?: number | null } {
  if (clock.realPerVirtual >= 1) return {};
  return { real_started_at: realStartedAt, real_finished_at: ended ? Date.now() : null };
}

/** What run.json keeps beside the status: the session's options and the items per step. */
function metaExtras(options: OpenDurableRunOptions): { options?: RunOptionsRecord; items: Record<string, number> } {
  const items = Object.fromEntries(options.graph.steps.map((step) => [step.id, step.itemCount]));
  return options.runOptions === undefined ? { items } : { options: options.runOptions, items };
}

/**
 * Seams for tests, not part of the public API (src/index.ts does not export this type): the
 * journal's hooks (a failure injected after a record is durable, a sync counter).
 */
export interface OpenDurableRunInternals extends OpenDurableRunOptions {
  readonly journalHooks?: Pick<JournalOptions, 'onAfterSync' | 'datasync'>;
}

export interface DurableRun {
  readonly runId: string;
  /** An earlier session of this run is being continued. */
  readonly resumed: boolean;
  readonly paths: ReturnType<typeof runPaths>;
  readonly journal: Journal;
  readonly recorder: JournalRecorder;
  /** Node states for the engine (resume, or carried-over unknowns). */
  readonly seeds: readonly ResumeSeed[];
  /** What resume found (null for a new run). */
  readonly plan: ResumePlan | null;
  /** Unknown items reported (or resubmitted with `--resubmit-unknown`). */
  readonly unknowns: readonly UnknownNode[];
  /** Things the user should know (a torn tail cut, a changed workflow, carried unknowns). */
  readonly notices: readonly string[];
  /** Earlier sessions of this run and what each spent (empty for a new run). */
  readonly earlier: readonly EarlierInvocation[];
  /** Waits for pending records, closes the journal and writes the run's final status. */
  close(status: RunMetaStatus): Promise<void>;
}

/** sha256 of the workflow file's bytes and the resolved inputs: what "the same workflow" means. */
export async function digestWorkflow(graph: JobGraph): Promise<string> {
  const file = createHash('sha256').update(await readFile(graph.workflow.file)).digest('hex');
  let inputs: string;
  try {
    inputs = canonicalJson(graph.inputs);
  } catch {
    inputs = JSON.stringify(graph.inputs);
  }
  return createHash('sha256').update(`${file}\n${inputs}`).digest('hex');
}

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

async function openOrCreate(options: OpenDurableRunInternals): Promise<DurableRun> {
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

/**
 * Unknown items a new run takes over from an earlier one, paid items whose result it still
 * has to fetch (never to buy again), and which run that was.
 */
interface Carried {
  readonly unknowns: readonly UnknownNode[];
  readonly paid: readonly PaidNode[];
  /** Jobs that timed out: polled and adopted, never submitted again (unless `--resubmit-timed-out`). */
  readonly timedOut: readonly TimedOutNode[];
  readonly from: string | null;
}

const NOTHING_CARRIED: Carried = { unknowns: [], paid: [], timedOut: [], from: null };

function carried(options: OpenDurableRunOptions, previous: ResumePlan | undefined, from: string): Carried {
  if (previous === undefined) return NOTHING_CARRIED;
  return { unknowns: options.resubmitUnknown ? [] : previous.unknowns, paid: previous.paid, timedOut: options.resubmitTimedOut ? [] : previous.timedOut, from };
}

/** What a new run named `runId` takes over: the unknowns of the latest other run of the workflow. */
async function carryOver(options: OpenDurableRunOptions, ids: JournalNodeIds, digest: string, runId: string): Promise<Carried> {
  const latest = (await listRuns(options.stateDir)).find((run) => run.runId !== runId && run.meta?.workflow_digest === digest);
  if (latest === undefined || latest.status === 'done') return NOTHING_CARRIED;
  return carried(options, await planFinishedRun(options, ids, latest), latest.runId);
}

/**
 * Starts a run. Its journal appears at once with its first records (the run header and the
 * unknowns it carries over), written aside and renamed into place: a crash leaves either no
 * journal (the run is created again) or all of them, never a run that forgot an unknown.
 */
async function createRun(options: OpenDurableRunInternals, ids: JournalNodeIds, runId: string, digest: string, carry: Carried): Promise<DurableRun> {
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

async function resumeRun(options: OpenDurableRunInternals, ids: JournalNodeIds, runId: string, digest: string, startedAt: number | undefined): Promise<DurableRun> {
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

/** What a finished run left behind, or undefined when its journal cannot be read. */
async function planFinishedRun(options: Pick<OpenDurableRunOptions, 'stateDir'>, ids: JournalNodeIds, run: RunSummary): Promise<ResumePlan | undefined> {
  try {
    return planResume(await readRunState(runPaths(options.stateDir, run.runId).journal), { ids });
  } catch {
    return undefined;
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

type DurableParts = Omit<DurableRun, 'close'>;

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

function durableRun(options: OpenDurableRunOptions, parts: DurableParts, startedAt: number, digest: string, realStartedAt: number, lock?: LockFile): DurableRun {
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
