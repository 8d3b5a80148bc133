import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { DeflowError } from '../../common/index.js';
import { WORKFLOW_CODES } from '../workflow-error.js';

/** A rendered `save` path that would leave the output folder (or name no file). */
export class UnsafeSavePathError extends DeflowError {
  override name = 'UnsafeSavePathError';
  readonly rendered: string;

  constructor(rendered: string, reason: string) {
    super(WORKFLOW_CODES.savePath, `save path ${JSON.stringify(rendered)}: ${reason}`, { details: { rendered, reason } });
    this.rendered = rendered;
  }
}

/** Why a rendered save path is unsafe, or undefined when it stays inside the output folder. */
export function savePathProblem(rendered: string): string | undefined {
  if (rendered.trim() === '') return 'expected a file path, got an empty string';
  if (rendered.includes('\0')) return 'expected a file path, got a NUL character';
  // Both separators count, so `..\\` is caught on every platform.
  const normalized = rendered.replace(/\\/g, '/');
  if (normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized) || isAbsolute(rendered)) return 'expected a path relative to the output folder, got an absolute path';
  const segments = normalized.split('/');
  if (segments.includes('..')) return 'expected a path inside the output folder, got a ".." segment';
  if (normalized.endsWith('/') || segments[segments.length - 1] === '.') return 'expected a file name at the end, got a folder';
  return longNameProblem(segments);
}

/** Longest file or folder name most file systems take, in bytes (the `.part` suffix included). */
export const MAX_NAME_BYTES = 255;
const PART_SUFFIX_BYTES = '.part'.length;

function longNameProblem(segments: readonly string[]): string | undefined {
  const long = segments.find((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES - PART_SUFFIX_BYTES);
  return long === undefined ? undefined : `expected file and folder names of at most ${MAX_NAME_BYTES - PART_SUFFIX_BYTES} bytes, got one of ${Buffer.byteLength(long)}`;
}

/**
 * Why a rendered output folder cannot take the results (a NUL, an over-long name, an existing
 * file such as /etc/passwd), or undefined when it can. `absolute` is where it resolves.
 */
export function outputDirProblem(rendered: string, absolute: string): string | undefined {
  if (rendered.trim() === '') return 'expected an output folder, got an empty path';
  if (rendered.includes('\0')) return 'expected an output folder, got a NUL character';
  const long = longNameProblem(rendered.replace(/\\/g, '/').split('/'));
  if (long !== undefined) return long;
  try {
    if (!statSync(absolute).isDirectory()) return `expected a folder, got an existing file ${absolute}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return `expected a folder, got a path through an existing file (${absolute})`;
    // Missing: created when the first result is saved.
  }
  return undefined;
}

/**
 * Resolves a rendered `save` path under `outDir`, refusing anything that could land outside:
 * empty, NUL, absolute, any `..` segment (even one that climbs back down), or a folder. The
 * engine calls this again for every rendered path, since rendered values come from results
 * and are untrusted; it must still refuse symlinks out of `outDir` when it writes.
 */
export function resolveSavePath(outDir: string, rendered: string): string {
  const problem = savePathProblem(rendered);
  if (problem) throw new UnsafeSavePathError(rendered, problem);
  const root = resolve(outDir);
  const target = resolve(root, rendered.replace(/\\/g, '/'));
  const inside = relative(root, target);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new UnsafeSavePathError(rendered, 'expected a path inside the output folder');
  }
  return target;
}
