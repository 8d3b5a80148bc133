/** What `deflow init` does (init.ts defines the command). */
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { DeflowError, EXIT } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import { ENV_EXAMPLE, GITIGNORE_ENTRIES, githubActionsSnippet, gitlabCiSnippet, type InitPaths, starterWorkflow } from './init-templates.js';

/** The files written, relative to DIR, with their content. `.gitignore` is added to, never replaced. */
const FILES: readonly (readonly [string, (paths: InitPaths) => string])[] = [
  ['workflow.yaml', starterWorkflow],
  ['.env.example', () => ENV_EXAMPLE],
  ['ci/github-actions.yml', githubActionsSnippet],
  ['ci/gitlab-ci.yml', gitlabCiSnippet],
];

const SCHEMA = 'node_modules/deflow/schemas/workflow.schema.json';

/**
 * Writes the starter files into `dir`; when any of them exists, writes nothing.
 * @throws DeflowError `E_INIT_EXISTS` naming every file that is already there
 */
export async function runInit(dir: string, io: CliIO): Promise<number> {
  const root = resolve(io.cwd, dir);
  const existing: string[] = [];
  for (const [name] of FILES) {
    if (await exists(join(root, name))) existing.push(name);
  }
  if (existing.length > 0) {
    const shown = relative(io.cwd, root) || '.';
    throw new DeflowError('E_INIT_EXISTS', `${shown}: ${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; deflow init writes nothing over existing files (remove them or pick another folder)`, {
      details: { dir: root, existing },
    });
  }
  const paths = await initPaths(root, io.cwd);
  let added: string[];
  try {
    for (const [name, content] of FILES) {
      await mkdir(dirname(join(root, name)), { recursive: true });
      // `wx`: a file that appeared meanwhile is not overwritten either.
      await writeFile(join(root, name), content(paths), { flag: 'wx' });
    }
    added = await addGitignoreEntries(join(root, '.gitignore'));
  } catch (error) {
    const { code, path } = error as NodeJS.ErrnoException;
    throw new DeflowError('E_INIT_WRITE', `${path ?? root}: cannot write the starter files (${code ?? String(error)})`, { cause: error, details: { dir: root } });
  }
  const at = (name: string): string => relative(io.cwd, join(root, name)) || name;
  io.stdout.write(
    [
      ...FILES.map(([name]) => `wrote ${at(name)}`),
      added.length > 0 ? `added ${added.join(', ')} to ${at('.gitignore')}` : `${at('.gitignore')} already ignores ${GITIGNORE_ENTRIES.join(', ')}`,
      '',
      'next:',
      `  deflow validate ${at('workflow.yaml')}`,
      `  deflow run ${at('workflow.yaml')} --emulator     # on the local emulator, no account needed`,
      `  copy ${at('ci/github-actions.yml')} to .github/workflows/ (or merge ${at('ci/gitlab-ci.yml')} into .gitlab-ci.yml)`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

/**
 * The paths the files of DIR name: the schema from DIR (the nearest installed deflow above it,
 * else the current folder's node_modules), the workflow and its outputs from the repository
 * root (the nearest folder above DIR with `.git`, else the current folder), where CI runs.
 */
async function initPaths(root: string, cwd: string): Promise<InitPaths> {
  const posix = (path: string): string => path.split(sep).join('/');
  let schema = join(cwd, SCHEMA);
  let repository = cwd;
  let foundSchema = false;
  let foundRepository = false;
  for (let dir = root; ; dir = dirname(dir)) {
    if (!foundSchema && (await exists(join(dir, SCHEMA)))) [schema, foundSchema] = [join(dir, SCHEMA), true];
    if (!foundRepository && (await exists(join(dir, '.git')))) [repository, foundRepository] = [dir, true];
    if ((foundSchema && foundRepository) || dirname(dir) === dir) break;
  }
  const fromRepository = (name: string): string => posix(relative(repository, join(root, name))) || name;
  return { schema: posix(relative(root, schema)), workflow: fromRepository('workflow.yaml'), output: fromRepository('out') };
}

/** Appends the entries `.gitignore` lacks; returns them. */
async function addGitignoreEntries(path: string): Promise<string[]> {
  const text = (await readText(path)) ?? '';
  const present = new Set(text.split(/\r?\n/).map((line) => line.trim()));
  const missing = GITIGNORE_ENTRIES.filter((entry) => !present.has(entry) && !present.has(entry.replace(/\/$/, '')));
  if (missing.length === 0) return [];
  const prefix = text === '' || text.endsWith('\n') ? '' : '\n';
  await writeFile(path, `${text}${prefix}# deflow: state folder, outputs, secrets\n${missing.join('\n')}\n`);
  return missing;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
