/**
 * The few file-system moves that make state survive a crash: a new name is durable only once
 * its directory is fsynced, and a file replaced by rename must be flushed before the rename.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Flushes a directory's entries (new, renamed or removed names) to disk. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * `mkdir -p` whose new directories are durable: each directory it created is fsynced in its
 * parent, so a crash cannot leave a durable file inside a folder whose name was lost.
 */
export function mkdirDurable(dir: string): void {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return;
  for (let d = dir; ; d = dirname(d)) {
    fsyncDir(dirname(d));
    if (d === first || dirname(d) === d) break;
  }
}

/** Writes every byte of `data` at the descriptor's position (a short write is retried). */
export function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/**
 * Replaces `path` with `data` atomically: a temporary sibling is written and flushed, renamed
 * over the target, and the directory is fsynced. Readers see the old or the new file, never
 * a mix, and two concurrent writers leave one complete version.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx');
  try {
    writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fdatasyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  fsyncDir(dirname(path));
}
