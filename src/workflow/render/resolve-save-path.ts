import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DeflowError, MAX_TEMP_NAME_BYTES } from '../../common/index.js';
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

/**
 * Why a rendered save path is unsafe, or undefined when it stays inside the output folder.
 * With `outDir` (absolute) the whole path is measured too.
 */
export function savePathProblem(rendered: string, outDir?: string): string | undefined {
  if (rendered.trim() === '') return 'expected a file path, got an empty string';
  if (rendered.includes('\0')) return 'expected a file path, got a NUL character';
  // Both separators count, so `..\\` is caught on every platform.
  const normalized = rendered.replace(/\\/g, '/');
  if (normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized) || isAbsolute(rendered)) return 'expected a path relative to the output folder, got an absolute path';
  const segments = normalized.split('/');
  if (segments.includes('..')) return 'expected a path inside the output folder, got a ".." segment';
  if (normalized.endsWith('/') || segments[segments.length - 1] === '.') return 'expected a file name at the end, got a folder';
  return longNameProblem(segments) ?? (outDir === undefined ? undefined : longPathProblem(resolve(outDir, normalized)));
}

/** Longest path most file systems take, in bytes (Linux's PATH_MAX, its final NUL included). */
export const MAX_PATH_BYTES = 4096;
/** The writer's temporary name beside a file (common's orphan-temps.ts), which must fit too. */
const TEMP_NAME_BYTES = MAX_TEMP_NAME_BYTES;

function longPathProblem(absolute: string): string | undefined {
  const bytes = Buffer.byteLength(dirname(absolute)) + 1 + Math.max(Buffer.byteLength(basename(absolute)), TEMP_NAME_BYTES);
  if (bytes < MAX_PATH_BYTES) return undefined;
  return `expected a path of less than ${MAX_PATH_BYTES} bytes (the output folder included), got one of ${Buffer.byteLength(absolute)}`;
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
 * file such as /etc/passwd), or undefined when it can. `absolute` is where it resolves. With
 * `workflowDir`, the workflow's own `output:` must also stay inside the workflow's folder once
 * symbolic links are resolved: a workflow from a pull request may not write anywhere else on
 * the runner (only the operator's `--output DIR` may).
 */
export function outputDirProblem(rendered: string, absolute: string, workflowDir?: string): string | undefined {
  if (rendered.trim() === '') return 'expected an output folder, got an empty path';
  if (rendered.includes('\0')) return 'expected an output folder, got a NUL character';
  const long = longNameProblem(rendered.replace(/\\/g, '/').split('/')) ?? longPathProblem(join(absolute, 'x'));
  if (long !== undefined) return long;
  if (workflowDir !== undefined) {
    const outside = outsideProblem(rendered, absolute, resolve(workflowDir));
    if (outside !== undefined) return outside;
  }
  try {
    if (!statSync(absolute).isDirectory()) return `expected a folder, got an existing file ${absolute}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return `expected a folder, got a path through an existing file (${absolute})`;
    // Missing: created when the first result is saved.
  }
  return undefined;
}

const ONLY_OPERATOR = "only the operator's --output DIR may point elsewhere";

function outsideProblem(rendered: string, absolute: string, workflowDir: string): string | undefined {
  const normalized = rendered.replace(/\\/g, '/');
  if (normalized.startsWith('/') || /^[A-Za-z]:/.test(normalized) || isAbsolute(rendered)) {
    return `expected a folder inside the workflow's folder (a relative path), got the absolute path ${absolute}; ${ONLY_OPERATOR}`;
  }
  if (!isInside(workflowDir, absolute)) return `expected a folder inside the workflow's folder ${workflowDir}, got ${absolute} (".." climbs out of it); ${ONLY_OPERATOR}`;
  const root = realpathOfExisting(workflowDir);
  const real = realpathOfExisting(absolute);
  if (!isInside(root, real)) return `expected a folder inside the workflow's folder ${root}, but ${absolute} resolves to ${real} (through a symbolic link); ${ONLY_OPERATOR}`;
  return undefined;
}

function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside));
}

/** `path` with symbolic links resolved as far as it exists; the missing rest appended as written. */
function realpathOfExisting(path: string): string {
  const rest: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      if (dirname(current) === current) return path;
      rest.push(basename(current));
    }
  }
}

/**
 * Resolves a rendered `save` path under `outDir`, refusing anything that could land outside:
 * empty, NUL, absolute, any `..` segment (even one that climbs back down), or a folder. The
 * engine calls this again for every rendered path, since rendered values come from results
 * and are untrusted; it must still refuse symlinks out of `outDir` when it writes.
 */
export function resolveSavePath(outDir: string, rendered: string): string {
  const root = resolve(outDir);
  // Checked again for every rendered path (results may shape it), before anything is submitted.
  const problem = savePathProblem(rendered, root);
  if (problem) throw new UnsafeSavePathError(rendered, problem);
  const target = resolve(root, rendered.replace(/\\/g, '/'));
  const inside = relative(root, target);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    throw new UnsafeSavePathError(rendered, 'expected a path inside the output folder');
  }
  return target;
}
