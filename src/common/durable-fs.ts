/**
 * The few file-system moves that make state survive a crash (a new name is durable only once
 * its directory is fsynced, and a file replaced by rename must be flushed before the rename),
 * and the one atomic writer every file deflow writes goes through: reports, run.json, the
 * journal snapshot, the caches, the code cache and saved outputs.
 *
 * The writer never writes through a name someone else chose: the temporary file has a fresh
 * random name in the target's folder and is created with O_EXCL|O_NOFOLLOW (a planted
 * `<file>.part` symbolic link is never followed); it is flushed, renamed over the target and
 * the folder is flushed. A target that exists and is not a regular file (a folder, a device
 * such as /dev/full, a fifo, a symbolic link) is refused, so nothing is replaced but a file.
 */
import {
  closeSync,
  constants as fsConstants,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DeflowError } from './deflow-error.js';
import { newTempName } from './orphan-temps.js';

/** node:fs/promises, loaded when first used: a start that writes nothing compiles none of it (docs/performance.md). */
const fsp = (): typeof import('node:fs/promises') => process.getBuiltinModule('node:fs/promises');

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
 * Appends one line to `path` and fsyncs it before returning (a new file's name too): the line
 * is on disk once this returns. Whole small lines only: a crash may leave a torn last line,
 * which readers skip.
 */
export function appendLineDurable(path: string, line: string): void {
  const created = !existsSync(path);
  const fd = openSync(path, 'a', 0o600);
  try {
    writeAll(fd, Buffer.from(line.endsWith('\n') ? line : `${line}\n`, 'utf8'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (created) fsyncDir(dirname(path));
}

/** What the atomic writers take: the whole content, or chunks of it (written in ~64 KiB batches). */
export type AtomicContent = string | Uint8Array | Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

export interface AtomicWriteOptions {
  /** Permission bits of a new file. @default 0o644 */
  readonly mode?: number;
  /** Create the target's folder (and its parents) first. @default false */
  readonly makeFolder?: boolean;
}

/** Flags of every temporary file: a new name, never through a symbolic link. */
const CREATE_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;

/**
 * A fresh temporary name in `path`'s folder (its length does not depend on `path`'s name). It
 * names this process as its writer (orphan-temps.ts), so that a later run removes it at once if
 * this process is killed before the rename.
 */
export function tempPathFor(path: string): string {
  return join(dirname(path), newTempName());
}

/**
 * Replaces `path` with `data` atomically (synchronous): readers see the old or the new file,
 * never a mix, and two concurrent writers leave one complete version.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  try {
    if (options.makeFolder === true) mkdirDurable(dirname(path));
    refuseNonFile(path, lstatOrUndefined(path));
    const tmp = tempPathFor(path);
    const fd = openSync(tmp, CREATE_FLAGS, options.mode ?? 0o644);
    try {
      writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
      fdatasyncSync(fd);
      closeSync(fd);
      refuseNonFile(path, lstatOrUndefined(path));
      renameSync(tmp, path);
    } catch (error) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(tmp, { force: true });
      throw error;
    }
    fsyncDir(dirname(path));
  } catch (error) {
    throw fileWriteError(path, error);
  }
}

/**
 * Replaces `path` atomically with what `content` holds, or with what `fill` writes through the
 * open handle of the temporary file (a download streamed into it).
 */
export async function writeFileAtomically(
  path: string,
  content: AtomicContent | ((handle: FileHandle) => Promise<void>),
  options: AtomicWriteOptions = {},
): Promise<void> {
  await placeFileAtomically(
    path,
    async (tmp) => {
      const handle = await fsp().open(tmp, CREATE_FLAGS, options.mode ?? 0o644);
      try {
        if (typeof content === 'function') await content(handle);
        else await writeContent(handle, content);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    },
    options,
  );
}

/**
 * Puts a file at `path` atomically: `create` makes the file at the temporary name it is given
 * (it must refuse an existing name: O_EXCL, link(), copyFile with COPYFILE_EXCL) and flushes
 * it; it is then renamed over `path` and the folder is flushed. On any failure the temporary
 * file is removed and the error names `path` (E_DISK_FULL, E_OUTPUT_NOT_WRITABLE, ...).
 */
export async function placeFileAtomically(path: string, create: (tmp: string) => Promise<void>, options: Pick<AtomicWriteOptions, 'makeFolder'> = {}): Promise<void> {
  let tmp: string | undefined;
  try {
    if (options.makeFolder === true) await fsp().mkdir(dirname(path), { recursive: true });
    refuseNonFile(path, await fsp().lstat(path).catch(ifMissing));
    tmp = tempPathFor(path);
    await create(tmp);
    // Checked again just before the rename: a folder or device put there meanwhile stays.
    refuseNonFile(path, await fsp().lstat(path).catch(ifMissing));
    await fsp().rename(tmp, path);
    // rename() between two links to one file is a no-op that leaves the temporary name behind.
    await fsp().rm(tmp, { force: true });
    tmp = undefined;
    fsyncDir(dirname(path));
  } catch (error) {
    if (tmp !== undefined) await fsp().rm(tmp, { force: true }).catch(() => undefined);
    throw fileWriteError(path, error);
  }
}

async function writeContent(handle: FileHandle, content: AtomicContent): Promise<void> {
  if (typeof content === 'string' || content instanceof Uint8Array) {
    await handle.writeFile(content);
    return;
  }
  let pending: (string | Uint8Array)[] = [];
  let size = 0;
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = pending.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    pending = [];
    size = 0;
    await handle.writeFile(Buffer.concat(batch));
  };
  for await (const chunk of content) {
    pending.push(chunk);
    size += chunk.length;
    if (size >= 65_536) await flush();
  }
  await flush();
}

function ifMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    return ifMissing(error as NodeJS.ErrnoException);
  }
}

function refuseNonFile(path: string, info: Stats | undefined): void {
  if (info === undefined || info.isFile()) return;
  const kind = info.isDirectory()
    ? 'a folder'
    : info.isSymbolicLink()
      ? 'a symbolic link'
      : info.isCharacterDevice() || info.isBlockDevice()
        ? 'a device'
        : info.isFIFO()
          ? 'a fifo'
          : info.isSocket()
            ? 'a socket'
            : 'not a regular file';
  throw new DeflowError('E_OUTPUT_NOT_FILE', `${resolve(path)}: is ${kind}; deflow replaces only regular files (remove it or choose another name)`, {
    details: { path: resolve(path), kind },
  });
}

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM']);

/**
 * The error to throw when writing `path` failed: a DeflowError as it was, a full disk as
 * `E_DISK_FULL` and a read-only or forbidden folder as `E_OUTPUT_NOT_WRITABLE` (both naming
 * the path), anything else unchanged.
 */
export function fileWriteError(path: string, error: unknown): unknown {
  if (error instanceof DeflowError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && DISK_FULL.has(code)) {
    return new DeflowError('E_DISK_FULL', `${resolve(path)}: no space left on the device (${code}); free some space and run the command again`, {
      cause: error,
      details: { path: resolve(path), errno: code },
    });
  }
  if (code !== undefined && NOT_WRITABLE.has(code)) {
    return new DeflowError('E_OUTPUT_NOT_WRITABLE', `${resolve(path)}: cannot write here (${code}: ${code === 'EROFS' ? 'a read-only file system' : 'permission denied'})`, {
      cause: error,
      details: { path: resolve(path), errno: code },
    });
  }
  return error;
}
