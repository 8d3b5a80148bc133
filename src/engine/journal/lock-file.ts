/**
 * One writer at a time: a lock file created atomically with its content (written aside, then
 * hard-linked into place, which fails if the name exists). The file names its holder: pid,
 * host, boot id and the process's start time (from `/proc`), so that a later reader can tell a
 * live holder from a dead one, even when the pid has since been reused by another program or
 * the holder was killed but not yet reaped (a zombie: `kill(pid, 0)` still succeeds for it).
 *
 * A lock whose holder is dead is taken over, atomically: the contender first claims the stale
 * lock by hard-linking its own record to `<lock>.takeover-<digest of the stale record>` (one
 * contender wins that name), checks the lock still holds that stale record, and renames its
 * own record over it. Of two processes taking over the same dead holder's lock, one wins and
 * the other then finds a live holder. A lock held on another host is reported, never stolen.
 */
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hostname } from 'node:os';
import { DeflowError, isDeflowError } from '../../common/index.js';
import { describeWho, type LockHolder } from './lock-holder.js';
import { LockWait } from './lock-wait.js';

/** A held lock. */
export interface LockFile {
  readonly path: string;
  /** Removes the lock if this process still owns it. Idempotent. */
  release(): void;
}

export interface AcquireLockOptions {
  /** What the lock guards, as messages name it (the state folder). @default the lock's path */
  readonly subject?: string;
}

export interface WaitLockOptions extends AcquireLockOptions {
  /** How long to wait for a live holder, in ms (Infinity: as long as it takes). @default 0 (refuse at once) */
  readonly waitMs?: number;
  /** Called once when the lock is held by another process and the wait begins. */
  readonly onWait?: (holder: LockHolder, message: string) => void;
  /** Resolves when the wait should stop (SIGINT): `E_INTERRUPTED`. */
  readonly interrupted?: Promise<void>;
  /** Between two looks at the lock. @default 200 */
  readonly pollMs?: number;
}

const MAX_ROUNDS = 20;
/** Markers of markers, when contenders die in the middle of taking over. */
const MAX_TAKEOVER_DEPTH = 2;

/**
 * Takes the lock at `path` for this process.
 * @throws DeflowError `E_STATE_LOCKED` when a live process (or one on another host) holds it.
 */
export function acquireLock(path: string, options: AcquireLockOptions = {}): LockFile {
  const content = `${JSON.stringify(ownRecord())}\n`;
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(aside, content, { flag: 'wx' });
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (tryLink(aside, path)) return held(path, content);
      const seen = readText(path);
      if (seen === undefined) continue; // released between our link and our read
      const holder = describeHolder(seen);
      if (holder.alive) throw lockedError(path, options.subject ?? path, holder);
      if (takeOver(path, seen, aside, 0)) return held(path, content);
      // Another process is taking it over (or just did): look again shortly.
      pause(5 + round * 5);
    }
    throw lockedError(path, options.subject ?? path, readLockHolder(path));
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * {@link acquireLock}, waiting up to `waitMs` for a live holder to let go (`--wait-lock`).
 * @throws DeflowError `E_STATE_LOCKED` when the wait ends with the lock still held; `E_INTERRUPTED`
 */
export async function acquireLockWaiting(path: string, options: WaitLockOptions = {}): Promise<LockFile> {
  const waitMs = options.waitMs ?? 0;
  const wait = new LockWait({ waitMs, subject: options.subject ?? path, onWait: options.onWait, interrupted: options.interrupted, pollMs: options.pollMs });
  for (;;) {
    try {
      return acquireLock(path, options);
    } catch (error) {
      if (!isDeflowError(error, 'E_STATE_LOCKED') || waitMs <= 0) throw error;
      const waited = wait.waited();
      if (waited >= waitMs) {
        throw new DeflowError(error.code, `${error.message} (waited ${Math.round(waited / 1000)} s)`, { details: { ...error.details } });
      }
      wait.tell(() => readLockHolder(path));
      await wait.pause();
    }
  }
}

/** Reads the holder of the lock at `path`, or undefined when there is no lock. */
export function readLockHolder(path: string): LockHolder | undefined {
  const text = readText(path);
  return text === undefined ? undefined : describeHolder(text);
}

/** This process's lock record (one line of JSON), for a lock kept elsewhere (the queue's Redis). */
export function newLockRecord(): string {
  return JSON.stringify(ownRecord());
}

/** Who holds a lock whose record is `text` (from a lock file or a Redis lock), and whether it still runs. */
export function describeLockRecord(text: string): LockHolder {
  return describeHolder(text);
}

/**
 * The message of a refusal: `another deflow run (pid N, started T) holds SUBJECT`; for a holder
 * on another host, what to do when it is gone (`foreignHint`, by default: delete the lock file).
 */
export function lockedMessage(subject: string, holder: LockHolder | undefined, foreignHint: string): string {
  if (holder === undefined) return `another deflow run holds ${subject}`;
  const base = `${describeWho(holder)} holds ${subject}`;
  if (!holder.foreign) return base;
  return `${base}; it runs on host ${holder.hostname}, where this host cannot check it: ${foreignHint}`;
}

/** What a lock file says about this process. */
interface LockRecord {
  readonly pid: number;
  readonly hostname: string;
  /** `/proc/sys/kernel/random/boot_id`: a pid is only meaningful within one boot. */
  readonly boot_id: string | null;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks since boot): tells the holder from a later process with its pid. */
  readonly start_time: string | null;
  readonly acquired_at: string;
  /** Makes every record unique, so that a record names one acquisition. */
  readonly token: string;
}

function ownRecord(): LockRecord {
  return {
    pid: process.pid,
    hostname: hostname(),
    boot_id: bootId(),
    start_time: procStat(process.pid)?.startTime ?? null,
    acquired_at: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
}

let ownBootId: string | null | undefined;

function bootId(): string | null {
  if (ownBootId === undefined) {
    try {
      ownBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      ownBootId = null;
    }
  }
  return ownBootId;
}

/** State (field 3) and start time (field 22) of a process, from `/proc/<pid>/stat`; undefined without /proc. */
function procStat(pid: number): { state: string; startTime: string } | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOENT for a pid that is gone; but a system without /proc says nothing either way.
    if (code === 'ENOENT' && hasProc()) return null;
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[22 - 3];
  if (state === undefined || startTime === undefined) return undefined;
  return { state, startTime };
}

let procMounted: boolean | undefined;

function hasProc(): boolean {
  if (procMounted === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procMounted = true;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

function describeHolder(text: string): LockHolder {
  const record = parseRecord(text);
  // A file we cannot read as a lock was not written by acquireLock (whose writes are atomic): stale.
  if (record === undefined) return { pid: 0, hostname: '', acquiredAt: '', alive: false, foreign: false };
  const foreign = record.hostname !== '' && record.hostname !== hostname();
  const base = { pid: record.pid, hostname: record.hostname, acquiredAt: record.acquired_at };
  // On another host the pid cannot be checked, so the lock counts as held.
  if (foreign) return { ...base, alive: true, foreign };
  return { ...base, alive: isHolderAlive(record), foreign };
}

function isHolderAlive(record: LockRecord): boolean {
  const boot = bootId();
  if (record.boot_id !== null && boot !== null && record.boot_id !== boot) return false; // the machine restarted since
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    // EPERM: the pid runs under another user, so it exists (checked further below).
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(record.pid);
  if (stat === undefined) return true; // no /proc: kill(0) is all there is
  if (stat === null) return false;
  // A zombie (killed, not reaped yet) or a process being torn down holds nothing any more.
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  // Another program now has the pid.
  if (record.start_time !== null && stat.startTime !== record.start_time) return false;
  return true;
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<Record<keyof LockRecord, unknown>>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    return {
      pid: value.pid,
      hostname: typeof value.hostname === 'string' ? value.hostname : '',
      boot_id: typeof value.boot_id === 'string' ? value.boot_id : null,
      start_time: typeof value.start_time === 'string' ? value.start_time : null,
      acquired_at: typeof value.acquired_at === 'string' ? value.acquired_at : '',
      token: typeof value.token === 'string' ? value.token : '',
    };
  } catch {
    return undefined;
  }
}

/** The lock just taken; first, the records contenders killed mid-acquisition left beside it go. */
function held(path: string, content: string): LockFile {
  removeDeadAsides(path);
  return heldLock(path, content);
}

/**
 * Removes `<lock>.<pid>.<hex>.tmp` records (and their `.<n>.r` links) whose writer no longer
 * runs, and takeover claims whose owner no longer runs: left by contenders killed in the middle
 * of taking the lock. They block nothing (a claim names a record that is no longer the lock's),
 * but would pile up.
 */
function removeDeadAsides(path: string): void {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    if (name.startsWith(`${prefix}takeover-`)) {
      // A claim on a record that is no longer the lock's (ours is): stale once its owner is gone.
      const claim = readText(join(dirname(path), name));
      if (claim !== undefined && !describeHolder(claim).alive) rmSync(join(dirname(path), name), { force: true });
      continue;
    }
    const match = /^(\d+)\.[0-9a-f]{8}\.tmp(?:\.\d+\.r)?$/.exec(name.slice(prefix.length));
    if (match === null || Number(match[1]) === process.pid || isPidRunning(Number(match[1]))) continue;
    rmSync(join(dirname(path), name), { force: true });
  }
}

function isPidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(pid);
  return stat === undefined || (stat !== null && stat.state !== 'Z' && stat.state !== 'X' && stat.state !== 'x');
}

function heldLock(path: string, content: string): LockFile {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      // Nobody replaces the record of a live holder, so what we read is still there when we unlink.
      if (readText(path) === content) rmSync(path, { force: true });
    },
  };
}

/**
 * Replaces the stale record `staleText` at `path` with ours (the content of `aside`), unless
 * another process does so first. True when ours is now in place.
 */
function takeOver(path: string, staleText: string, aside: string, depth: number): boolean {
  const marker = `${path}.takeover-${createHash('sha256').update(staleText).digest('hex').slice(0, 16)}`;
  if (!tryLink(aside, marker)) {
    // Another contender is replacing the same stale record; if it died doing so, its claim is stale too.
    const claim = readText(marker);
    if (claim === undefined || depth >= MAX_TAKEOVER_DEPTH || describeHolder(claim).alive) return false;
    if (!takeOver(marker, claim, aside, depth + 1)) return false;
  }
  try {
    // Only the holder of the marker replaces this record, and a live holder's record is never
    // replaced: the record we check is the one we rename over.
    if (readText(path) !== staleText) return false;
    const ours = `${aside}.${depth}.r`;
    linkSync(aside, ours);
    renameSync(ours, path);
    return true;
  } finally {
    rmSync(marker, { force: true });
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** A short synchronous pause (a contender is finishing a takeover). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function lockedError(path: string, subject: string, holder: LockHolder | undefined): DeflowError {
  return new DeflowError('E_STATE_LOCKED', lockedMessage(subject, holder, `if no deflow runs there any more, delete ${path}`), {
    details: { path, subject, pid: holder?.pid ?? null, hostname: holder?.hostname ?? null, started_at: holder?.acquiredAt ?? null },
  });
}
