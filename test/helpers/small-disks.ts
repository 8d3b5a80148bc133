/**
 * Small file systems for the write-failure tests: a tmpfs of a few KiB that fills up at once,
 * and one remounted read-only (root ignores chmod, so only a read-only mount refuses it).
 * Both need root (mount); `canMount` says whether this machine allows it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

function tryMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), 'deflow-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** True when tmpfs can be mounted here (root in a container that allows it). */
export const canMount = tryMount();

/** A fresh tmpfs of `size` (e.g. `64k`), unmounted when the test ends; `ro` remounts it read-only after `fill`. */
export function useSmallDisk(size: string, options: { ro?: boolean; fill?: (dir: string) => void } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'deflow-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  onTestFinished(() => {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  options.fill?.(dir);
  if (options.ro === true) execFileSync('mount', ['-o', 'remount,ro', dir]);
  return dir;
}
