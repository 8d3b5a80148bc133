/**
 * One writer per run journal. The lock is a file created atomically with its content (written
 * aside, then hard-linked into place, which fails if the name exists), holding the owner's
 * pid. A lock whose pid is dead is stale (its owner was killed) and is taken over.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { DeflowError } from '../../common/index.js';

/** A held lock. */
export interface LockFile {
  readonly path: string;
  /** Removes the lock if this process still owns it. Idempotent. */
  release(): void;
}

/** Who holds a lock, as its file says. */
export interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  readonly acquiredAt: string;
  /** False only when the pid provably no longer runs on this host. */
  readonly alive: boolean;
}

const MAX_TAKEOVER_ROUNDS = 5;

/**
 * Takes the lock at `path` (by convention `<journal>.lock`) for this process.
 * @throws DeflowError `E_STATE_LOCKED` when a live process holds it.
 */
export function acquireLock(path: string): LockFile {
  const content = `${JSON.stringify({ pid: process.pid, hostname: hostname(), acquired_at: new Date().toISOString() })}\n`;
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(aside, content, { flag: 'wx' });
  try {
    for (let round = 0; round < MAX_TAKEOVER_ROUNDS; round++) {
      if (tryLink(aside, path)) return heldLock(path, content);
      const holder = readLockHolder(path);
      if (holder === undefined) continue; // released between our link and our read
      if (holder.alive) throw lockedError(path, holder);
      removeStaleLock(path, holder.pid);
    }
    throw lockedError(path, readLockHolder(path));
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Reads the holder of the lock at `path`, or undefined when there is no lock. */
export function readLockHolder(path: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = parseLock(text);
  // A file we cannot read as a lock was not written by acquireLock (whose writes are atomic): stale.
  if (parsed === undefined) return { pid: 0, hostname: '', acquiredAt: '', alive: false };
  const elsewhere = parsed.hostname !== '' && parsed.hostname !== hostname();
  // On another host the pid cannot be checked, so the lock counts as held.
  return { ...parsed, alive: elsewhere || isPidAlive(parsed.pid) };
}

function heldLock(path: string, content: string): LockFile {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      try {
        if (readFileSync(path, 'utf8') === content) rmSync(path, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
  };
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

/**
 * Moves a stale lock aside rather than deleting it by name: if another process took it over
 * between our read and now, we moved its fresh lock, notice the pid differs, and put it back.
 */
function removeStaleLock(path: string, stalePid: number): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = parseLock(readFileSync(aside, 'utf8'));
  if ((moved?.pid ?? 0) !== stalePid) tryLink(aside, path);
  rmSync(aside, { force: true });
}

function parseLock(text: string): Omit<LockHolder, 'alive'> | undefined {
  try {
    const value = JSON.parse(text) as { pid?: unknown; hostname?: unknown; acquired_at?: unknown };
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    return {
      pid: value.pid,
      hostname: typeof value.hostname === 'string' ? value.hostname : '',
      acquiredAt: typeof value.acquired_at === 'string' ? value.acquired_at : '',
    };
  } catch {
    return undefined;
  }
}

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid runs under another user, so it is alive.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function lockedError(path: string, holder: LockHolder | undefined): DeflowError {
  const who = holder === undefined ? 'another process' : `process ${holder.pid} on ${holder.hostname || 'an unknown host'}`;
  return new DeflowError(
    'E_STATE_LOCKED',
    `${path}: the run is locked by ${who}${holder?.acquiredAt ? ` since ${holder.acquiredAt}` : ''}; ` +
      `wait for it to finish or stop it (if no deflow runs as that process, delete the lock file)`,
    { details: { path, pid: holder?.pid ?? null, hostname: holder?.hostname ?? null } },
  );
}
