/** A temp copy of `workflows/` (the demo and its media), removed when the test ends. */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

/** Copies the repository's `workflows/` into a temp folder and returns the folder. */
export async function useDemoWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-demo-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await cp(join(root, 'workflows'), join(dir, 'workflows'), { recursive: true });
  return dir;
}
