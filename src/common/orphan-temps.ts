/**
 * The temporary files of the atomic writer (durable-fs.ts) name their writer, so that the next
 * run can remove those a killed process left behind at once, and never one a live process is
 * still writing: `.<8 hex random>.<pid>.<host tag><boot tag>.part`, where each tag is 4 hex
 * digits of the SHA-256 of the host name and of the boot id (`/proc/sys/kernel/random/boot_id`).
 *
 * A temporary file is an orphan when its writer provably no longer runs: written on this host
 * in an earlier boot, or by a pid that is gone or a zombie. One written on another host (a shared
 * folder) is left alone, as is one whose pid runs (even if the pid was reused since: it is
 * removed by a later run). Names without a writer (`.<16 hex>.part`, written before) are orphans
 * once two hours old.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// node:crypto, node:os and node:fs/promises are loaded when first used (process.getBuiltinModule):
// each costs a start its compile, and a command that writes nothing needs none of them
// (docs/performance.md).
const crypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
const fsp = (): typeof import('node:fs/promises') => process.getBuiltinModule('node:fs/promises');

/** Suffix of every temporary file the writers leave behind when killed mid-write. */
export const TEMP_SUFFIX = '.part';

/** Longest temporary name: `.` 8 hex `.` a pid of up to 7 digits `.` 8 hex `.part`. */
export const MAX_TEMP_NAME_BYTES = 1 + 8 + 1 + 7 + 1 + 8 + TEMP_SUFFIX.length;

const WRITER_NAME = /^\.[0-9a-f]{8}\.(\d{1,10})\.([0-9a-f]{4})([0-9a-f]{4})\.part$/;
const ANONYMOUS_NAME = /^\.[0-9a-f]{16}\.part$/;
/** How old an anonymous temporary file must be to count as an orphan. */
const ANONYMOUS_GRACE_MS = 2 * 3600 * 1000;

let ownTags: { host: string; boot: string } | undefined;

function tags(): { host: string; boot: string } {
  if (ownTags === undefined) {
    let boot = '';
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      // no /proc: every boot looks alike, and the pid alone decides
    }
    ownTags = { host: tag(process.getBuiltinModule('node:os').hostname()), boot: tag(boot) };
  }
  return ownTags;
}

function tag(text: string): string {
  return crypto().createHash('sha256').update(text).digest('hex').slice(0, 4);
}

/** A fresh temporary file name (no folder) naming this process as its writer. */
export function newTempName(): string {
  const { host, boot } = tags();
  return `.${crypto().randomBytes(4).toString('hex')}.${process.pid}.${host}${boot}${TEMP_SUFFIX}`;
}

/** True when `name` is a temporary file whose writer provably no longer runs (`mtimeMs` for anonymous ones). */
export function isOrphanTemp(name: string, mtimeMs: number, now = Date.now()): boolean {
  if (ANONYMOUS_NAME.test(name)) return now - mtimeMs >= ANONYMOUS_GRACE_MS;
  const match = WRITER_NAME.exec(name);
  if (match === null) return false;
  const own = tags();
  if (match[2] !== own.host) return false; // another host's: it cannot be checked from here
  if (match[3] !== own.boot) return true; // written before this machine restarted
  const pid = Number(match[1]);
  return pid !== process.pid && !isRunning(pid);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  try {
    // A zombie (killed, not reaped yet: containers without an init reap late) writes nothing.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X' && state !== 'x';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * Removes the orphaned temporary files under `dirs` (each walked whole, symbolic links not
 * followed; a folder that does not exist is skipped). Resolves with the paths removed.
 */
export async function removeOrphanTemps(dirs: readonly string[], now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fsp().readdir(dir, { withFileTypes: true });
    } catch {
      return; // gone, or not a folder
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (entry.isFile() && entry.name.endsWith(TEMP_SUFFIX)) {
        try {
          if (!isOrphanTemp(entry.name, (await fsp().lstat(path)).mtimeMs, now)) continue;
          await fsp().rm(path, { force: true });
          removed.push(path);
        } catch {
          // gone meanwhile
        }
      }
    }
  };
  for (const dir of new Set(dirs)) await visit(dir);
  return removed;
}
