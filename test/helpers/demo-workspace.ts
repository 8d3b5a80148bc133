/**
 * A temp copy of `workflows/` (the demo and its media), removed when the test ends. The state
 * (`.deflow/`) and outputs (`out/`) a local demo run leaves beside the workflows are not copied:
 * a test must start from a fresh clone's files, not from a developer's cache.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

/** Copies the repository's `workflows/` into a temp folder and returns the folder. */
export async function useDemoWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-demo-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const source = join(root, 'workflows');
  const leftovers = new Set([join(source, '.deflow'), join(source, 'out')]);
  await cp(source, join(dir, 'workflows'), { recursive: true, filter: (path) => !leftovers.has(path) });
  return dir;
}
