import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, acquireLockWaiting, readLockHolder } from '../../../src/engine/journal/lock-file.js';

let dir: string;
let child: ChildProcess | undefined;
let zombieParent: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-lock-'));
});
afterEach(() => {
  if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  child = undefined;
  if (zombieParent?.pid !== undefined && zombieParent.exitCode === null) process.kill(zombieParent.pid, 'SIGKILL');
  zombieParent = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const lockContent = (pid: number): string => `${JSON.stringify({ pid, hostname: hostname(), acquired_at: '2026-11-22T23:00:00.000Z' })}\n`;

/** Field `n` (1-based, as proc(5) numbers them) of `/proc/<pid>/stat`. */
function statField(pid: number, n: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[n - 3]!;
}

/** A lock record as acquireLock writes it, for a given process. */
const recordOf = (fields: { pid: number; hostname?: string; boot_id?: string | null; start_time?: string | null }): string =>
  `${JSON.stringify({
    pid: fields.pid,
    hostname: fields.hostname ?? hostname(),
    boot_id: fields.boot_id === undefined ? readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : fields.boot_id,
    start_time: fields.start_time === undefined ? statField(fields.pid, 22) : fields.start_time,
    acquired_at: '2026-11-22T23:00:00.000Z',
    token: 'abcd',
  })}\n`;

/**
 * A zombie: a process killed with SIGKILL whose parent never reaps it (`sleep` exec'd by the
 * shell that started it in the background). `kill(pid, 0)` still succeeds for it.
 */
async function zombie(): Promise<{ pid: number; startTime: string }> {
  zombieParent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const [chunk] = (await once(zombieParent.stdout!, 'data')) as [Buffer];
  const pid = Number(chunk.toString('utf8').trim());
  const startTime = statField(pid, 22);
  process.kill(pid, 'SIGKILL');
  while (statField(pid, 3) !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10));
  expect(() => process.kill(pid, 0)).not.toThrow();
  return { pid, startTime };
}

/** A live process that is not deflow. */
async function liveStranger(): Promise<number> {
  child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await once(child, 'spawn');
  return child.pid!;
}

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

  it('removes the records and claims of contenders killed mid-acquisition once it holds the lock, never a live one\'s', () => {
    const path = join(dir, 'session.lock');
    const dead = spawnSync('true').pid;
    const record = (pid: number): string => `${JSON.stringify({ pid, hostname: hostname(), boot_id: null, start_time: null, acquired_at: 'x', token: 't' })}\n`;
    const leftovers = [`session.lock.${dead}.0a1b2c3d.tmp`, `session.lock.${dead}.0a1b2c3d.tmp.0.r`, 'session.lock.takeover-0123456789abcdef'];
    for (const name of leftovers) writeFileSync(join(dir, name), record(dead));
    const live = `session.lock.${process.ppid}.deadbeef.tmp`;
    writeFileSync(join(dir, live), record(process.ppid));
    const lock = acquireLock(path);
    for (const name of leftovers) expect(existsSync(join(dir, name)), name).toBe(false);
    expect(existsSync(join(dir, live))).toBe(true);
    lock.release();
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
    expect((error as Error).message).toBe(`another deflow run (pid ${child.pid}, started 2026-11-22T23:00:00.000Z) holds ${path}`);
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

  it('takes over the lock of a holder killed and not yet reaped (a zombie)', async () => {
    const path = join(dir, 'session.lock');
    const { pid, startTime } = await zombie();
    writeFileSync(path, recordOf({ pid, start_time: startTime }));
    expect(readLockHolder(path)).toMatchObject({ pid, alive: false });
    const lock = acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to another program (another start time)', async () => {
    const path = join(dir, 'session.lock');
    const pid = await liveStranger();
    const startTime = statField(pid, 22);
    writeFileSync(path, recordOf({ pid, start_time: String(Number(startTime) - 1) }));
    expect(readLockHolder(path)).toMatchObject({ pid, alive: false });
    acquireLock(path).release();
    // The same pid with its own start time is a live holder.
    writeFileSync(path, recordOf({ pid, start_time: startTime }));
    expect(() => acquireLock(path)).toThrow(expect.objectContaining({ code: 'E_STATE_LOCKED' }));
  });

  it('takes over a lock written before the machine restarted (another boot id)', async () => {
    const path = join(dir, 'session.lock');
    const pid = await liveStranger();
    writeFileSync(path, recordOf({ pid, boot_id: '00000000-0000-0000-0000-000000000000' }));
    acquireLock(path).release();
  });

  it('records its own pid, host, boot id and process start time', () => {
    const path = join(dir, 'session.lock');
    const lock = acquireLock(path);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      start_time: statField(process.pid, 22),
    });
    lock.release();
  });

  it('reports a lock held on another host and never steals it, even with a dead pid', () => {
    const path = join(dir, 'session.lock');
    const record = recordOf({ pid: deadPid(), hostname: 'build-runner-7', boot_id: null, start_time: null });
    writeFileSync(path, record);
    let error: unknown;
    try {
      acquireLock(path, { subject: '/srv/flows/.deflow' });
    } catch (e) {
      error = e;
    }
    const { pid } = JSON.parse(record) as { pid: number };
    expect(error).toMatchObject({ code: 'E_STATE_LOCKED', details: { pid, hostname: 'build-runner-7' } });
    expect((error as Error).message).toBe(
      `another deflow run (pid ${pid} on build-runner-7, started 2026-11-22T23:00:00.000Z) holds /srv/flows/.deflow; ` +
        `it runs on host build-runner-7, where this host cannot check it: if no deflow runs there any more, delete ${path}`,
    );
    expect(readFileSync(path, 'utf8')).toBe(record);
  });

  it('waits for a live holder to release the lock (--wait-lock), telling once what it waits for', async () => {
    const path = join(dir, 'session.lock');
    const held = acquireLock(path);
    const told: string[] = [];
    const waiting = acquireLockWaiting(path, { subject: 'the folder', waitMs: 10_000, pollMs: 20, onWait: (_h, message) => told.push(message) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    held.release();
    const lock = await waiting;
    expect(told).toEqual([expect.stringMatching(new RegExp(`^waiting for another deflow run \\(pid ${process.pid}, started \\S+\\) to release the folder$`))]);
    lock.release();
  });

  it('gives up waiting after the given time, with the refusal', async () => {
    const path = join(dir, 'session.lock');
    const held = acquireLock(path);
    await expect(acquireLockWaiting(path, { subject: 'the folder', waitMs: 50, pollMs: 10 })).rejects.toMatchObject({
      code: 'E_STATE_LOCKED',
      message: expect.stringMatching(/^another deflow run \(pid \d+, started \S+\) holds the folder \(waited 0 s\)$/),
    });
    held.release();
  });
});
