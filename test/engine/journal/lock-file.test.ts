import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, readLockHolder } from '../../../src/engine/journal/lock-file.js';

let dir: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-lock-'));
});
afterEach(() => {
  if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const lockContent = (pid: number): string => `${JSON.stringify({ pid, hostname: hostname(), acquired_at: '2026-11-22T23:00:00.000Z' })}\n`;

/** The pid of a process that has already exited. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', '']);
  expect(result.status).toBe(0);
  return result.pid;
}

describe('journal lock', () => {
  it('holds the owner pid and is removed on release', () => {
    const path = join(dir, 'journal.jsonl.lock');
    const lock = acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(readLockHolder(path)).toMatchObject({ pid: process.pid, alive: true });
    lock.release();
    lock.release();
    expect(existsSync(path)).toBe(false);
    expect(readLockHolder(path)).toBeUndefined();
  });

  it('refuses a lock held by a live process, naming its pid', async () => {
    child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child!.once('spawn', resolve));
    const path = join(dir, 'journal.jsonl.lock');
    writeFileSync(path, lockContent(child.pid!));
    let error: unknown;
    try {
      acquireLock(path);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'E_STATE_LOCKED', details: { pid: child.pid } });
    expect((error as Error).message).toContain(`process ${child.pid}`);
    expect(readFileSync(path, 'utf8')).toBe(lockContent(child.pid!));
  });

  it('refuses a second lock within the same process', () => {
    const path = join(dir, 'journal.jsonl.lock');
    const lock = acquireLock(path);
    expect(() => acquireLock(path)).toThrow(expect.objectContaining({ code: 'E_STATE_LOCKED' }));
    lock.release();
  });

  it('takes over a stale lock whose process is dead', () => {
    const path = join(dir, 'journal.jsonl.lock');
    const pid = deadPid();
    writeFileSync(path, lockContent(pid));
    expect(readLockHolder(path)).toMatchObject({ pid, alive: false });
    const lock = acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock file that is not a lock (garbage): ours is written, then removed on release', () => {
    const path = join(dir, 'journal.jsonl.lock');
    writeFileSync(path, 'not json');
    const lock = acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('does not remove a lock another process took over after ours', () => {
    const path = join(dir, 'journal.jsonl.lock');
    const lock = acquireLock(path);
    writeFileSync(path, lockContent(deadPid()));
    lock.release();
    expect(existsSync(path)).toBe(true);
  });

  it('leaves no temporary files behind', () => {
    const path = join(dir, 'journal.jsonl.lock');
    writeFileSync(path, lockContent(deadPid()));
    acquireLock(path).release();
    expect(spawnSync('ls', ['-A', dir]).stdout.toString()).toBe('');
  });
});
