import { close, constants as fsConstants, fstat, open, read } from 'node:fs';
import { promisify } from 'node:util';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';

/**
 * Largest workflow (or inputs file) read, checked before parsing: big configs are refused, not
 * parsed (long item lists belong in a `for_each: { file }`).
 */
export const MAX_WORKFLOW_BYTES = 1024 * 1024;

/** Most lines, and most flow separators (`,`), a workflow may have: parsing stays well under a second. */
export const MAX_WORKFLOW_LINES = 20_000;

/** Deepest nesting of `[` and `{` a workflow may have (a parser recurses on each level). */
export const MAX_WORKFLOW_NESTING = 64;

// node:fs's callback functions, not node:fs/promises: loading that one compiles a dozen more of
// Node's built-ins (its FileHandle's readline, watchers, streams), about 2 ms of every start
// that reads a workflow (docs/performance.md).
const openFile = promisify(open);
const statFile = promisify(fstat);
const readBytes = promisify(read);
const closeFile = promisify(close);

/**
 * Reads a text file for parsing, refusing it past `maxBytes` without reading it whole.
 * `displayName` is what errors print (the path as the user gave it).
 */
export async function readSourceFile(path: string, displayName: string, maxBytes = MAX_WORKFLOW_BYTES): Promise<string> {
  const where = { file: displayName, line: 1, col: 1, path: 'workflow' };
  let fd: number;
  try {
    // Non-blocking: a FIFO or a device is refused below instead of waiting for a writer.
    fd = await openFile(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `cannot read the file (${describeError(error)})`;
    throw new WorkflowError(WORKFLOW_CODES.file, where, reason, { cause: error });
  }
  try {
    const stat = await statFile(fd);
    if (!stat.isFile()) throw new WorkflowError(WORKFLOW_CODES.file, where, 'expected a file, got a directory or special file');
    if (stat.size > maxBytes) throw tooLarge(where, stat.size, maxBytes);
    // Read one byte past the cap: a file that grew since stat() is still refused.
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await readBytes(fd, buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) throw tooLarge(where, length, maxBytes);
    const text = stripBom(buffer.subarray(0, length).toString('utf8'));
    checkComplexity(text, where);
    return text;
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    throw new WorkflowError(WORKFLOW_CODES.file, where, `cannot read the file (${describeError(error)})`, { cause: error });
  } finally {
    await closeFile(fd);
  }
}

/**
 * Refuses, by a linear scan before any parsing, text whose parse would cost too much time or
 * stack: too many lines or flow items, or `[`/`{` nested too deep.
 */
function checkComplexity(text: string, where: { file: string; line: number; col: number; path: string }): void {
  let lines = 1;
  let commas = 0;
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) lines++;
    else if (c === 44) commas++;
    else if (c === 91 || c === 123) {
      if (++depth > deepest) deepest = depth;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  if (lines > MAX_WORKFLOW_LINES || commas > MAX_WORKFLOW_LINES) {
    throw new WorkflowError(
      WORKFLOW_CODES.tooLarge,
      where,
      `expected at most ${MAX_WORKFLOW_LINES} lines and ${MAX_WORKFLOW_LINES} flow items, got ${lines} lines and ${commas} commas (long lists of items belong in a for_each: { file })`,
    );
  }
  if (deepest > MAX_WORKFLOW_NESTING) {
    throw new WorkflowError(WORKFLOW_CODES.tooLarge, where, `expected at most ${MAX_WORKFLOW_NESTING} levels of [ ] and { } nesting, got ${deepest}`);
  }
}

function tooLarge(where: { file: string; line: number; col: number; path: string }, size: number, maxBytes: number): WorkflowError {
  return new WorkflowError(
    WORKFLOW_CODES.tooLarge,
    where,
    `expected a file of at most ${formatBytes(maxBytes)}, got ${size > maxBytes ? `more than ${formatBytes(maxBytes)}` : formatBytes(size)}`,
  );
}

/** `5 MiB`, `20.5 MiB`, `812 KiB`, `12 B`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${trim(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${trim(bytes / 1024)} KiB`;
  return `${bytes} B`;
}

function trim(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
