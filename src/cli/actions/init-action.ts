/** What `deflow init` does (init.ts defines the command). */
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { DeflowError, EXIT } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import { ENV_EXAMPLE, GITHUB_ACTIONS_SNIPPET, GITIGNORE_ENTRIES, GITLAB_CI_SNIPPET, STARTER_WORKFLOW } from './init-templates.js';

/** The files written, relative to DIR. `.gitignore` is added to, never replaced. */
const FILES: readonly (readonly [string, string])[] = [
  ['workflow.yaml', STARTER_WORKFLOW],
  ['.env.example', ENV_EXAMPLE],
  ['ci/github-actions.yml', GITHUB_ACTIONS_SNIPPET],
  ['ci/gitlab-ci.yml', GITLAB_CI_SNIPPET],
];

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
  let added: string[];
  try {
    for (const [name, content] of FILES) {
      await mkdir(dirname(join(root, name)), { recursive: true });
      // `wx`: a file that appeared meanwhile is not overwritten either.
      await writeFile(join(root, name), content, { flag: 'wx' });
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
