/**
 * `.env` files: deflow reads `.env` in the current folder, then `.env` beside the workflow a
 * command names, and adds each variable the environment does not already have (the real
 * environment wins; the current folder's file wins over the workflow's). Parsed by Node's own
 * `util.parseEnv` (the format `node --env-file` reads). Values are never printed: a file that
 * cannot be read is named with its error code, never quoted.
 */
import { readFile as readFileCallback } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { parseEnv, promisify } from 'node:util';
import { DeflowError } from '../common/index.js';
import type { CliIO } from '../common/index.js';

/** node:fs's readFile, not node:fs/promises' (which costs every start a dozen more built-ins). */
const readFile = promisify(readFileCallback);

/** The `.env` files of a command, in order of precedence: the current folder's, then the workflow's. */
export function dotEnvFiles(cwd: string, workflow: string | undefined): string[] {
  const files = [join(cwd, '.env')];
  if (workflow !== undefined && /^\.ya?ml$/i.test(extname(workflow))) {
    const beside = join(dirname(resolve(cwd, workflow)), '.env');
    if (beside !== files[0]) files.push(beside);
  }
  return files;
}

/** Adds to `io.env` the variables of the `.env` files it lacks; resolves to the files read. */
export async function loadDotEnv(io: CliIO, workflow: string | undefined): Promise<string[]> {
  const read: string[] = [];
  for (const file of dotEnvFiles(io.cwd, workflow)) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw new DeflowError('E_USAGE_ENV_FILE', `${file}: cannot read it (${code ?? 'error'})`, { cause: error, details: { file } });
    }
    read.push(file);
    for (const [name, value] of Object.entries(parseEnv(text))) {
      if (io.env[name] === undefined) io.env[name] = value;
    }
  }
  return read;
}
