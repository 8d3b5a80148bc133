/**
 * The state folder (default `.deflow/` beside the workflow) and its layout:
 *
 * ```
 * session.lock                 held by the one deflow run using the folder (lock-file.ts)
 * runs/<runId>/journal.jsonl   append-only journal of the run (journal.ts)
 * runs/<runId>/journal.jsonl.lock  held while a process writes the journal (lock-file.ts)
 * runs/<runId>/run.json        small metadata: workflow, digest, status, started/finished
 * cache/ab/<sha256>.json       result-cache entries (result-cache.ts)
 * blobs/ab/<sha256>            result files by content (blob-store.ts)
 * models.json                  cached model list
 * ```
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Clock } from '../../common/index.js';
import { DeflowError, STATE_DIR_NAME } from '../../common/index.js';
import { mkdirDurable, writeFileAtomic } from '../../common/index.js';
import type { RunStatus } from '../contracts/events.js';
import { readRunState } from './journal-replay.js';
import type { RunState } from './replayed-state.js';
import { readLockHolder } from './lock-file.js';

export { STATE_DIR_NAME };

export interface ResolveStateDirOptions {
  /** The workflow file; the default state folder sits beside it. */
  readonly workflowPath: string;
  /** `--state-dir`, resolved against `cwd`. */
  readonly stateDir?: string | undefined;
  /** @default process.cwd() */
  readonly cwd?: string;
}

/** The absolute state folder for a workflow. */
export function resolveStateDir(options: ResolveStateDirOptions): string {
  const cwd = options.cwd ?? process.cwd();
  if (options.stateDir !== undefined && options.stateDir !== '') return resolve(cwd, options.stateDir);
  return join(dirname(resolve(cwd, options.workflowPath)), STATE_DIR_NAME);
}

/** Paths of the shared parts of a state folder. */
export function stateLayout(stateDir: string) {
  return {
    runsDir: join(stateDir, 'runs'),
    cacheDir: join(stateDir, 'cache'),
    blobsDir: join(stateDir, 'blobs'),
    modelsFile: join(stateDir, 'models.json'),
    /** Held by the session that uses the folder: one `deflow run` at a time. */
    sessionLock: join(stateDir, 'session.lock'),
  } as const;
}

/** Paths of one run's files. */
export function runPaths(stateDir: string, runId: string) {
  assertRunId(runId);
  const dir = join(stateDir, 'runs', runId);
  const journal = join(dir, 'journal.jsonl');
  return { dir, journal, lock: `${journal}.lock`, meta: join(dir, 'run.json') } as const;
}

/**
 * A new run id, sortable by start time: `YYYYMMDD-HHMMSS-<4 hex>` (UTC). A person reads it as
 * the time the run began: on a clock that runs ahead of real time (the emulator's accelerated
 * clock, whose dates drift into the future) it is stamped with the real time instead.
 */
export function newRunId(clock: Clock): string {
  const iso = new Date(clock.realPerVirtual < 1 ? Date.now() : clock.now()).toISOString(); // 2026-11-22T22:53:40.123Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Checks a run id (ours, or one given with `--run-id`) is a plain folder name.
 * @throws DeflowError `E_USAGE_RUN_ID`
 */
export function assertRunId(runId: string): void {
  if (!RUN_ID.test(runId) || runId.includes('..')) {
    throw new DeflowError(
      'E_USAGE_RUN_ID',
      `run id ${JSON.stringify(runId)}: expected letters, digits, '.', '_' or '-' (at most 128, no '..')`,
      { details: { runId } },
    );
  }
}

/** `running` until the run writes its final status. */
export type RunMetaStatus = 'running' | RunStatus;

/** `runs/<runId>/run.json`. Times are ms since the epoch on the run's clock. */
export interface RunMeta {
  readonly v: 1;
  readonly run_id: string;
  /** The workflow file, absolute. */
  readonly workflow: string;
  readonly workflow_digest: string;
  readonly status: RunMetaStatus;
  readonly started_at: number;
  readonly finished_at: number | null;
  /** The options that shaped the run (its latest session's): a plain `deflow run` that resumes it uses them. */
  readonly options?: RunOptionsRecord;
  /** Items per step (the expanded workflow's), so `deflow status` can say how many have not started. */
  readonly items?: Readonly<Record<string, number>>;
  /**
   * Real wall times (ms) of `started_at` and `finished_at`, kept when the run's clock runs ahead
   * of real time (the emulator's accelerated clock, whose dates drift into the future):
   * `deflow status` shows these, with the clock's own beside them.
   */
  readonly real_started_at?: number;
  readonly real_finished_at?: number | null;
}

/**
 * The command-line options that shaped a run (issue 27, point 4), journalled in `run.json`:
 * a plain `deflow run WORKFLOW` that resumes the run uses them; one given again overrides it.
 */
export interface RunOptionsRecord {
  readonly keep_going: boolean;
  /** `--max-cost` (null: none given; the workflow's `budget.max_cost` applies). */
  readonly max_cost: number | null;
  readonly allow_unpriced: boolean;
  /** `--input` pairs as given (`name=value`). */
  readonly input: readonly string[];
  /** `--inputs` file, absolute. */
  readonly inputs_file: string | null;
  /** `--output` folder, absolute. */
  readonly output: string | null;
  /** The state folder, absolute. */
  readonly state_dir: string;
  /** `--queue` Redis URL without its password, or null. */
  readonly queue: string | null;
}

/** Creates `runs/<runId>/` durably and returns its paths. */
export function createRunDir(stateDir: string, runId: string): ReturnType<typeof runPaths> {
  const paths = runPaths(stateDir, runId);
  mkdirDurable(paths.dir);
  return paths;
}

/** Replaces `run.json` atomically (a reader sees the old or the new version). */
export function writeRunMeta(stateDir: string, meta: RunMeta): void {
  writeFileAtomic(runPaths(stateDir, meta.run_id).meta, `${JSON.stringify(meta, null, 2)}\n`);
}

/**
 * Reads `run.json`. The journal is the source of truth: when `run.json` is missing, garbled or
 * does not match its run, it is rebuilt from the journal's header and last `end` record (and
 * written back when it can be). Undefined only when neither can be read.
 */
export async function readRunMeta(stateDir: string, runId: string): Promise<RunMeta | undefined> {
  try {
    const value = JSON.parse(await readFile(runPaths(stateDir, runId).meta, 'utf8')) as Partial<RunMeta>;
    if (isRunMeta(value, runId)) return value;
  } catch {
    // rebuilt below
  }
  return rebuildRunMeta(stateDir, runId);
}

function isRunMeta(value: Partial<RunMeta> | null, runId: string): value is RunMeta {
  return (
    typeof value === 'object' &&
    value !== null &&
    value.v === 1 &&
    value.run_id === runId &&
    typeof value.status === 'string' &&
    typeof value.workflow === 'string' &&
    typeof value.workflow_digest === 'string' &&
    typeof value.started_at === 'number'
  );
}

async function rebuildRunMeta(stateDir: string, runId: string): Promise<RunMeta | undefined> {
  const paths = runPaths(stateDir, runId);
  let replayed: RunState;
  try {
    replayed = await readRunState(paths.journal);
  } catch {
    return undefined;
  }
  const run = replayed.run;
  if (run === null) return undefined;
  const meta: RunMeta = {
    v: 1,
    run_id: runId,
    workflow: run.workflow,
    workflow_digest: run.workflow_digest,
    status: replayed.end?.status ?? 'running',
    started_at: run.started_at,
    finished_at: replayed.end?.ts ?? null,
  };
  try {
    // A live run's own writes win: only a run no process holds is written back.
    if (!(readLockHolder(paths.lock)?.alive ?? false)) writeRunMeta(stateDir, meta);
  } catch {
    // read-only state folder: the rebuilt metadata still serves this reader
  }
  return meta;
}

/** A run as `deflow status` lists it. */
export interface RunSummary {
  readonly runId: string;
  /** undefined when `run.json` is missing (the run died while starting) or unreadable. */
  readonly meta: RunMeta | undefined;
  /** `crashed`: marked running, but no live process holds its lock. */
  readonly status: RunMetaStatus | 'crashed';
  /** A live process holds the run's lock. */
  readonly active: boolean;
}

/** Statuses a later `deflow run` of the same workflow picks up again. */
export const RESUMABLE_STATUSES: ReadonlySet<RunSummary['status']> = new Set(['crashed', 'interrupted', 'daily-limit', 'over-budget']);

/** The runs in a state folder, newest first. */
export async function listRuns(stateDir: string): Promise<RunSummary[]> {
  let names: string[];
  try {
    names = await readdir(stateLayout(stateDir).runsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const runs = await Promise.all(
    names.filter((name) => RUN_ID.test(name) && !name.includes('..')).map((runId) => summariseRun(stateDir, runId)),
  );
  const started = (run: RunSummary): number => run.meta?.started_at ?? 0;
  return runs.sort((a, b) => started(b) - started(a) || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
}

/**
 * The run a new `deflow run` of this workflow should resume: the newest run with this
 * workflow digest, if that run is unfinished (see {@link RESUMABLE_STATUSES}). An older
 * unfinished run behind a newer one is not revived. A run still held by a live process is
 * returned as well (`active: true`): opening its journal then fails with `E_STATE_LOCKED`.
 */
export async function findResumableRun(stateDir: string, workflowDigest: string): Promise<RunSummary | undefined> {
  const latest = (await listRuns(stateDir)).find((run) => run.meta?.workflow_digest === workflowDigest);
  if (latest === undefined) return undefined;
  return RESUMABLE_STATUSES.has(latest.status) || (latest.active && latest.status === 'running') ? latest : undefined;
}

async function summariseRun(stateDir: string, runId: string): Promise<RunSummary> {
  const meta = await readRunMeta(stateDir, runId);
  const active = readLockHolder(runPaths(stateDir, runId).lock)?.alive ?? false;
  const recorded = meta?.status ?? 'running';
  return { runId, meta, status: recorded === 'running' && !active ? 'crashed' : recorded, active };
}
