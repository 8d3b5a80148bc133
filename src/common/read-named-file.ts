/** Reads a text file the user named, failing with a located DeflowError: the one wording for it. */
import { DeflowError } from './deflow-error.js';
import type { ErrorCode } from './error-codes.js';

/** node:fs/promises, loaded when first used: common is in every start's chunk, and `--help` must not compile it (docs/performance.md). */
const fsp = (): typeof import('node:fs/promises') => process.getBuiltinModule('node:fs/promises');

/**
 * The UTF-8 text of `path`, or a DeflowError `code` saying `<shown>: cannot read <what>: <errno>`
 * with the path in its details. `shown` is how the user wrote it (default: `path`).
 */
export async function readNamedFile(path: string, code: ErrorCode, what: string, shown: string = path): Promise<string> {
  try {
    return await fsp().readFile(path, 'utf8');
  } catch (error) {
    throw new DeflowError(code, `${shown}: cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, {
      cause: error,
      details: { file: path },
    });
  }
}
