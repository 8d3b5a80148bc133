/**
 * Writes a node's result where its step's `save` says, atomically: media from the blob store,
 * text as UTF-8, both through `<path>.part` and a rename, so an output path holds either
 * nothing or the whole result. A symlinked folder that leads out of the output folder is
 * refused: rendered paths come from results, which are untrusted.
 */
import { mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { DeflowError } from '../../common/index.js';
import type { BlobStore } from '../cache/index.js';
import type { NodeResult } from './node-result.js';

/** Writes `result` to `destPath` (absolute, already checked to be under `outputDir`). */
export async function saveOutput(result: NodeResult, destPath: string, outputDir: string, blobs: BlobStore): Promise<void> {
  await mkdir(dirname(destPath), { recursive: true });
  await assertInside(outputDir, dirname(destPath), destPath);
  if (result.blob !== undefined) {
    await blobs.materialise(result.blob, destPath);
    return;
  }
  const text = result.text ?? (result.json === undefined ? undefined : JSON.stringify(result.json));
  if (text === undefined) {
    throw new DeflowError('E_SAVE_NOTHING', `${destPath}: the job's result was not fetched, so there is nothing to save`, { details: { path: destPath } });
  }
  const part = `${destPath}.part`;
  try {
    await writeFile(part, text, 'utf8');
    await rename(part, destPath);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
}

async function assertInside(outputDir: string, folder: string, destPath: string): Promise<void> {
  const [root, real] = await Promise.all([realpath(outputDir), realpath(folder)]);
  const inside = relative(root, real);
  if (inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside))) return;
  throw new DeflowError('E_WORKFLOW_SAVE_PATH', `save path ${destPath}: its folder resolves to ${real}, outside the output folder ${resolve(root)} (a symbolic link?)`, {
    details: { path: destPath, resolved: real, outputDir: root },
  });
}
