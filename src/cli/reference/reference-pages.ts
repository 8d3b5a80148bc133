/**
 * The pages of docs/reference/, generated from the code: `npm run docs` writes them
 * (scripts/write-docs.mjs, from the build) and test/docs/reference-pages.test.ts regenerates
 * them in memory and fails when a committed page differs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { CliIO } from '../../common/index.js';
import { buildProgram } from '../main.js';
import { renderCliReference } from './cli-reference.js';
import { renderCodesReference } from './codes-reference.js';
import { renderSchemasReference } from './schemas-reference.js';
import { renderTasksReference } from './tasks-reference.js';

/** The command that rewrites the pages, as the stale-page test names it. */
export const REGENERATE_COMMAND = 'npm run docs';

/** Each generated page's path (relative to the repository) and its content, from the repository at `root`. */
export function referencePages(root: string): Map<string, string> {
  const schemas = readdirSync(join(root, 'schemas'))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, schema: JSON.parse(readFileSync(join(root, 'schemas', name), 'utf8')) as Record<string, unknown> }));
  return new Map([
    ['docs/reference/cli.md', renderCliReference(buildProgram(silentIO(), () => undefined))],
    ['docs/reference/tasks.md', renderTasksReference()],
    [
      'docs/reference/exit-codes.md',
      renderCodesReference({
        exitCodesTs: readFileSync(join(root, 'src', 'common', 'exit-codes.ts'), 'utf8'),
        // The error table lives beside the exit codes (one module decides every exit code).
        errorCodesTs: readFileSync(join(root, 'src', 'common', 'exit-codes.ts'), 'utf8'),
      }),
    ],
    ['docs/reference/schemas.md', renderSchemasReference(schemas)],
  ]);
}

/** An IO for building the command tree only: nothing is read or written, no environment. */
function silentIO(): CliIO {
  const sink = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });
  return { stdout: sink(), stderr: sink(), stdin: new PassThrough(), env: {}, cwd: '/', interrupted: new Promise<void>(() => undefined), isInterrupted: () => false };
}
