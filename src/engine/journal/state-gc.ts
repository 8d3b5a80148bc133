/**
 * `deflow gc`: keeps a state folder from growing for ever. It removes finished runs, result-cache
 * entries and blobs by age (`keepDays`, on the files' real modification times) and then by size
 * (`maxBytes`, oldest first), and never what a run may still need:
 *
 * - a run is removable only when it is over (`done`, `failed`, `refused`), no process holds it, and
 *   its journal has no item a resume would work on: none `unsaved` (paid, result not fetched),
 *   in flight or `timed-out` (its job may still be at the service), `unknown`, `deferred`,
 *   withdrawn or failed with a retryable error;
 * - a cache entry or a blob named by any run that stays (its journal and files hold their
 *   sha256) stays; a blob named by a cache entry that stays stays;
 * - a blob named by nothing is removed once it is an hour old (a live run may have just
 *   written one it has not journalled yet).
 *
 * Saved outputs are hard links or copies of blobs: removing a blob never touches them. It holds
 * the state folder's lock while it works: beside a live run it is refused, or waits.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { DeflowError, isDeflowError } from '../../common/index.js';
import { join } from 'node:path';
import { readRunState } from './journal-replay.js';
import { acquireLockWaiting, type LockFile } from './lock-file.js';
import { summariseProgress } from './run-progress.js';
import { listRuns, runPaths, stateLayout } from './state-dir.js';

export interface GcOptions {
  readonly stateDir: string;
  /** Finished runs, cache entries and unreferenced blobs older than this many days go. */
  readonly keepDays: number;
  /** Then, while the folder is larger than this, the oldest removable things go (finished runs, then cache entries). */
  readonly maxBytes?: number | undefined;
  /** Say what would go; remove nothing. */
  readonly dryRun?: boolean;
  /** Real time now, ms. @default Date.now() */
  readonly now?: number;
  /**
   * How long to wait for a run holding the state folder (`--wait-lock`), in ms (Infinity: as
   * long as it takes). @default 0: refuse at once with `E_STATE_LOCKED`
   */
  readonly waitLockMs?: number;
  /** Told once when the wait for the state folder begins. */
  readonly onLockWait?: (message: string) => void;
  /** Resolves when the wait should stop (SIGINT): `E_INTERRUPTED`. */
  readonly interrupted?: Promise<void>;
}

export interface GcResult {
  readonly runs: { readonly removed: readonly string[]; readonly kept: number; readonly needed: readonly { readonly runId: string; readonly why: string }[] };
  readonly cacheEntries: number;
  readonly blobs: number;
  /** Bytes freed (or that would be, with `dryRun`). */
  readonly freedBytes: number;
  /** Bytes of the state folder's runs, cache and blobs before and after. */
  readonly beforeBytes: number;
  readonly afterBytes: number;
  readonly dryRun: boolean;
}

const DAY_MS = 24 * 3600 * 1000;
/** An unreferenced blob younger than this may belong to a run that has not journalled it yet. */
const BLOB_GRACE_MS = 3600 * 1000;
const SHA256 = /[0-9a-f]{64}/g;
/** Statuses of a run that is over; its journal still decides whether a resume has work. */
const FINISHED: ReadonlySet<string> = new Set(['done', 'failed', 'refused']);
/** Failures whose job may still exist at the service (a resume looks again). */
const TIMED_OUT: ReadonlySet<string> = new Set(['E_JOB_TIMEOUT', 'E_POLL_DEADLINE']);

interface FileInfo {
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

interface RunInfo {
  readonly runId: string;
  readonly dir: string;
  readonly bytes: number;
  readonly mtimeMs: number;
  /** Why it must stay, or null when it is finished and needs nothing. */
  readonly needed: string | null;
}

/**
 * Removes (or with `dryRun` lists) what the state folder no longer needs, holding the state
 * folder's lock (`session.lock`, the one a run holds) so that it never runs beside a live run.
 * @throws DeflowError `E_STATE_LOCKED` when a run holds the folder (after `waitLockMs`)
 */
export async function collectGarbage(options: GcOptions): Promise<GcResult> {
  const lock = await lockStateDir(options);
  try {
    return await collect(options);
  } finally {
    lock?.release();
  }
}

/** The state folder's lock, or nothing for a folder that does not exist (there is nothing to free). */
async function lockStateDir(options: GcOptions): Promise<LockFile | undefined> {
  if (!existsSync(options.stateDir)) return undefined;
  try {
    return await acquireLockWaiting(stateLayout(options.stateDir).sessionLock, {
      subject: options.stateDir,
      waitMs: options.waitLockMs ?? 0,
      ...(options.onLockWait === undefined ? {} : { onWait: (_holder: unknown, message: string) => options.onLockWait?.(message) }),
      ...(options.interrupted === undefined ? {} : { interrupted: options.interrupted }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (isDeflowError(error) || typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw error;
    throw new DeflowError('E_STATE_DIR', `${options.stateDir}: cannot take the state folder's lock (${(error as Error).message})`, {
      cause: error,
      details: { stateDir: options.stateDir, errno: code },
    });
  }
}

async function collect(options: GcOptions): Promise<GcResult> {
  const now = options.now ?? Date.now();
  const cutoff = now - options.keepDays * DAY_MS;
  const dryRun = options.dryRun ?? false;
  const layout = stateLayout(options.stateDir);

  const runs = await Promise.all((await listRuns(options.stateDir)).map(async (summary): Promise<RunInfo> => {
    const dir = runPaths(options.stateDir, summary.runId).dir;
    const files = await walk(dir);
    return {
      runId: summary.runId,
      dir,
      bytes: sum(files),
      mtimeMs: Math.max(0, ...files.map((f) => f.mtimeMs)),
      needed: summary.active ? 'a process is running it' : !FINISHED.has(summary.status) ? `it is ${summary.status} (resumable)` : await whatItNeeds(options.stateDir, summary.runId),
    };
  }));
  const cache = await walk(layout.cacheDir);
  const blobs = (await walk(layout.blobsDir)).filter((f) => /\/[0-9a-f]{64}$/.test(f.path));
  const beforeBytes = sum(runs) + sum(cache) + sum(blobs);

  // Runs: finished ones past the age, then (over the size) the oldest finished ones left.
  const removable = runs.filter((r) => r.needed === null).sort((a, b) => a.mtimeMs - b.mtimeMs);
  const removed = new Set(removable.filter((r) => r.mtimeMs < cutoff));
  let size = beforeBytes - sum([...removed]);
  for (const run of removable) {
    if (options.maxBytes === undefined || size <= options.maxBytes) break;
    if (removed.has(run)) continue;
    removed.add(run);
    size -= run.bytes;
  }
  const keptRuns = runs.filter((r) => !removed.has(r));

  // What the runs that stay name: cache keys and blob ids alike are sha256 hex.
  const named = new Set<string>();
  for (const run of keptRuns) for (const file of await walk(run.dir)) await collectHashes(file.path, named);

  // Cache entries: unnamed ones past the age, then (over the size) the oldest unnamed ones.
  const keyOf = (entry: FileInfo): string => /([0-9a-f]{64})\.json$/.exec(entry.path)?.[1] ?? '';
  const blobOf = new Map<FileInfo, string | undefined>();
  for (const entry of cache) blobOf.set(entry, await readBlobOf(entry.path));
  const blobBytes = new Map(blobs.map((b) => [b.path.slice(-64), b.bytes]));
  const candidates = cache.filter((e) => !named.has(keyOf(e))).sort((a, b) => a.mtimeMs - b.mtimeMs);
  const gone = new Set(candidates.filter((e) => e.mtimeMs < cutoff));
  size -= sum([...gone]);
  for (const entry of candidates) {
    if (options.maxBytes === undefined || size <= options.maxBytes) break;
    if (gone.has(entry)) continue;
    gone.add(entry);
    const blob = blobOf.get(entry);
    size -= entry.bytes + (blob !== undefined && !named.has(blob) ? (blobBytes.get(blob) ?? 0) : 0);
  }
  for (const entry of cache) {
    const blob = blobOf.get(entry);
    if (!gone.has(entry) && blob !== undefined) named.add(blob);
  }

  // Blobs named by nothing that stays, past the grace of a live run's fresh writes.
  const orphans = blobs.filter((b) => !named.has(b.path.slice(-64)) && b.mtimeMs < now - BLOB_GRACE_MS);

  if (!dryRun) {
    for (const run of removed) await rm(run.dir, { recursive: true, force: true });
    for (const entry of gone) await rm(entry.path, { force: true });
    for (const blob of orphans) await rm(blob.path, { force: true });
  }
  const freedBytes = sum([...removed]) + sum([...gone]) + sum(orphans);
  return {
    runs: {
      removed: [...removed].map((r) => r.runId),
      kept: keptRuns.length,
      needed: runs.filter((r) => r.needed !== null).map((r) => ({ runId: r.runId, why: r.needed! })),
    },
    cacheEntries: gone.size,
    blobs: orphans.length,
    freedBytes,
    beforeBytes,
    afterBytes: beforeBytes - freedBytes,
    dryRun,
  };
}

/** Why a finished run's journal must stay, or null when a resume would find nothing to do. */
async function whatItNeeds(stateDir: string, runId: string): Promise<string | null> {
  let state: Awaited<ReturnType<typeof readRunState>>;
  try {
    state = await readRunState(runPaths(stateDir, runId).journal);
  } catch {
    return 'its journal cannot be read';
  }
  const progress = summariseProgress(state);
  const total = (key: 'unsaved' | 'unknown' | 'running' | 'deferred' | 'withdrawn'): number => progress.steps.reduce((n, s) => n + s[key], 0);
  if (total('unsaved') > 0) return `${total('unsaved')} item(s) paid and not saved`;
  if (total('unknown') > 0) return `${total('unknown')} item(s) unknown`;
  if (total('running') > 0) return `${total('running')} item(s) with a job at the service`;
  if (total('deferred') > 0) return `${total('deferred')} item(s) deferred`;
  if (progress.timedOut.length > 0) return `${progress.timedOut.length} item(s) timed-out`;
  // Journals from before the timed-out state: a failure whose job may still be at the service.
  let timedOut = 0;
  for (const node of state.nodes.values()) {
    const last = node.last as { t?: string; error?: { code?: string } };
    if (node.phase === 'failed' && last.t === 'failed' && TIMED_OUT.has(last.error?.code ?? '')) timedOut++;
  }
  if (timedOut > 0) return `${timedOut} item(s) timed-out`;
  if (progress.resumable > 0) return `${progress.resumable} item(s) a resume would retry`;
  return null;
}

async function collectHashes(path: string, into: Set<string>): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return;
  }
  for (const match of text.matchAll(SHA256)) into.add(match[0]);
}

async function readBlobOf(path: string): Promise<string | undefined> {
  try {
    const entry = JSON.parse(await readFile(path, 'utf8')) as { result?: { blob?: unknown } };
    return typeof entry.result?.blob === 'string' ? entry.result.blob : undefined;
  } catch {
    return undefined;
  }
}

/** Every file under `dir` (none when it does not exist). */
async function walk(dir: string): Promise<FileInfo[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: FileInfo[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else if (entry.isFile()) {
      try {
        const info = await stat(path);
        files.push({ path, bytes: info.size, mtimeMs: info.mtimeMs });
      } catch {
        // gone meanwhile
      }
    }
  }
  return files;
}

function sum(items: readonly { readonly bytes: number }[]): number {
  return items.reduce((n, i) => n + i.bytes, 0);
}
